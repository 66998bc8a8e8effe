/**
 * Graceful shutdown: a note server child serving load directly and through a relay child gets
 * SIGTERM. It must finish what it started (every request it began is answered, every answered
 * create is on disk), refuse what comes after (connection refused or 503, never executed),
 * exit on its own within a bound, and leave the relay answering 503 SERVER_OFFLINE at once
 * (its connector unregisters) rather than holding clients until the relay's time-out.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../helpers/ports.ts';
import { httpClient, type Outcome } from './http.ts';
import { startRelayProc } from './procs.ts';
import { createRng, subSeed } from './rng.ts';
import { keyedServer } from './world.ts';

/** Options of `gracefulShutdown`. */
export interface ShutdownOptions {
  seed: number;
  /** Concurrent clients per route (direct, relay). */
  clients?: number;
  /** Load before the SIGTERM, in ms. */
  loadMs?: number;
  /** The relay's answer time-out: far above the bound, so a relayed time-out cannot pass. */
  answerTimeoutMs?: number;
  /** Most ms from SIGTERM to exit. */
  exitBoundMs?: number;
}

/** What happened. */
export interface ShutdownResult {
  exitCode: number | null;
  exitMs: number;
  /** Requests answered 2xx that were sent before and answered after the SIGTERM. */
  finishedAcross: number;
  /** Answers by route and outcome, e.g. `direct 201`, `relay 503 SERVER_OFFLINE`, `direct ECONNREFUSED`. */
  outcomes: Record<string, number>;
  /** The slowest relayed answer after the SIGTERM, in ms. */
  slowestRelayedAfterMs: number;
  /** The relay's answer to a request after the exit, and how long it took. */
  afterExit: { status: number; code: string | undefined; ms: number };
  violations: string[];
  /** The server's last log lines when something went wrong. */
  serverLog?: string;
}

interface Sent {
  route: 'direct' | 'relay';
  path: string;
  content: string;
  start: number;
  end: number;
  out: Outcome;
}

/** Runs the scenario once; see the file comment. */
export async function gracefulShutdown(opts: ShutdownOptions): Promise<ShutdownResult> {
  const clients = opts.clients ?? 8;
  const answerTimeoutMs = opts.answerTimeoutMs ?? 20_000;
  const exitBoundMs = opts.exitBoundMs ?? 10_000;
  const root = await mkdtemp(join(tmpdir(), 'quire-shutdown-'));
  const vault = join(root, 'data', 'notes');
  const relay = await startRelayProc(await freePort(), {
    RELAY_ANSWER_TIMEOUT_MS: String(answerTimeoutMs),
    RELAY_SHUTDOWN_GRACE_MS: '1000',
  });
  const client = httpClient({ keepAlive: true, maxSockets: 4 * clients });
  const violations: string[] = [];
  try {
    const { server, key, serverId } = await keyedServer(join(root, 'data'), { relayUrl: relay.url });
    const bases = { direct: `${server.url}/api/v1`, relay: `${relay.url}/r/${serverId}/api/v1` };
    const sent: Sent[] = [];
    let stopLoad = false;
    let sigAt = Number.POSITIVE_INFINITY;
    const worker = async (route: 'direct' | 'relay', i: number) => {
      const rng = createRng(subSeed(opts.seed, (route === 'relay' ? 1000 : 0) + i));
      let n = 0;
      while (!stopLoad) {
        const path = `${route}/c${i}/n${n++}.md`;
        // Some big notes keep requests in flight long enough to be cut by a careless shutdown.
        const size = rng.chance(0.25) ? rng.int(200_000, 1_500_000) : rng.int(10, 2000);
        const content = `# ${path}\n${'x'.repeat(size)}\n`;
        const start = performance.now();
        const out = await client.request('POST', `${bases[route]}/notes`, {
          headers: key,
          body: { path, content },
        });
        sent.push({ route, path, content, start, end: performance.now(), out });
        // After a refusal, a short pause so a client does not spin on a closed door.
        if (out.status === 0 || out.status === 503) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const load = [
      ...Array.from({ length: clients }, (_, i) => worker('direct', i)),
      ...Array.from({ length: clients }, (_, i) => worker('relay', i)),
    ];
    await new Promise((r) => setTimeout(r, opts.loadMs ?? 1500));
    sigAt = performance.now();
    server.signal('SIGTERM');
    const bound = new Promise<'late'>((r) => setTimeout(() => r('late'), exitBoundMs).unref());
    const ended = await Promise.race([server.exited, bound]);
    const exitMs = performance.now() - sigAt;
    if (ended === 'late') {
      violations.push(`the server did not exit within ${exitBoundMs} ms of SIGTERM`);
      await server.kill();
    }
    const exit = await server.exited;
    // Keep the clients going a little after the exit: they must be refused, not hang.
    await new Promise((r) => setTimeout(r, 300));
    stopLoad = true;
    await Promise.all(load);

    const t0 = performance.now();
    const after = await client.request('GET', `${bases.relay}/notes`, { headers: key });
    const afterExit = {
      status: after.status,
      code: after.json?.error?.code as string | undefined,
      ms: performance.now() - t0,
    };
    if (after.status !== 503 || afterExit.code !== 'SERVER_OFFLINE')
      violations.push(`after the exit the relay answered ${after.status} ${afterExit.code ?? ''}`);

    const outcomes: Record<string, number> = {};
    let finishedAcross = 0;
    let slowestRelayedAfterMs = 0;
    for (const s of sent) {
      const label =
        s.out.status === 0
          ? s.out.error
          : `${s.out.status}${s.out.status >= 400 ? ` ${s.out.json?.error?.code}` : ''}`;
      outcomes[`${s.route} ${label}`] = (outcomes[`${s.route} ${label}`] ?? 0) + 1;
      const onDisk = await readFile(join(vault, s.path), 'utf8').catch(() => null);
      if (s.out.status === 201) {
        if (onDisk !== s.content) violations.push(`${s.route} ${s.path}: answered 201 but not on disk`);
        if (s.start < sigAt && s.end > sigAt) finishedAcross++;
      } else {
        if (onDisk !== null) violations.push(`${s.route} ${s.path}: answered ${label} but was carried out`);
        if (s.out.status !== 0 && s.out.status !== 503)
          violations.push(`${s.route} ${s.path}: answered ${label}`);
        if (s.out.status === 0 && s.route === 'relay')
          violations.push(`relay ${s.path}: ${label} from the relay`);
      }
      if (s.route === 'relay' && s.end > sigAt)
        slowestRelayedAfterMs = Math.max(slowestRelayedAfterMs, s.end - Math.max(s.start, sigAt));
    }
    if (slowestRelayedAfterMs > answerTimeoutMs / 2)
      violations.push(`a relayed request waited ${Math.round(slowestRelayedAfterMs)} ms after the SIGTERM`);
    if (exit.code !== 0 && ended !== 'late')
      violations.push(`the server exited with code ${exit.code} (${exit.signal})`);
    const serverLog = violations.length ? server.tail() : undefined;
    return {
      exitCode: exit.code,
      exitMs,
      finishedAcross,
      outcomes,
      slowestRelayedAfterMs,
      afterExit,
      violations,
      serverLog,
    };
  } finally {
    client.close();
    await relay.kill();
    await rm(root, { recursive: true, force: true });
  }
}
