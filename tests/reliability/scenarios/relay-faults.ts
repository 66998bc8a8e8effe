/**
 * Relay faults under steady load: a note server child registered (through its connector) with
 * relay instance B, clients sending through relay instance A, both relays on one redis-server
 * of our own. In turn: Redis is killed and started again (empty), B is killed and started
 * again, B and then A are restarted gracefully, and the note server itself (its connector) is
 * killed and started again. After each fault traffic must flow again on its own; at the end
 * every request has had exactly one answer (2xx, 503 or 504; only a connection refused while
 * A was down counts as not sent), no create or delete ran twice, a 503 never ran, and every
 * acknowledged create is on disk.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../helpers/ports.ts';
import { until } from '../../helpers/wait.ts';
import { httpClient } from './http.ts';
import { type Proc, startRedisProc, startRelayProc } from './procs.ts';
import { type Answered, checkAnswers, label, type Sent } from './relay-faults-check.ts';
import { createRng, subSeed } from './rng.ts';
import { type KeyedServer, keyedServer } from './world.ts';

/** Options of `relayFaults`. */
export interface RelayFaultsOptions {
  seed: number;
  /** Concurrent clients (default 12). */
  clients?: number;
  /** Steady load between faults, ms (default 800). */
  settleMs?: number;
  /** How long a fault lasts before the restart, ms (default 400). */
  downMs?: number;
  /** The relays' answer time-out, ms (default 3000). */
  answerTimeoutMs?: number;
  /** Most ms to wait for traffic to flow again after a fault (default 30 000). */
  recoverMs?: number;
  log?: (line: string) => void;
}

/** One fault and how long traffic took to flow again after the restart. */
export interface FaultReport {
  fault: string;
  recoveredMs: number;
  outcomes: Record<string, number>;
}

/** What happened: the answers' accounting (see `checkAnswers`) plus the faults. */
export interface RelayFaultsResult extends Answered {
  requests: number;
  faults: FaultReport[];
}

const RESTART_A = "relay A (the clients') restarted gracefully (SIGTERM)";

/** Runs the scenario once; see the file comment. */
export async function relayFaults(opts: RelayFaultsOptions): Promise<RelayFaultsResult> {
  const clients = opts.clients ?? 12;
  const settleMs = opts.settleMs ?? 800;
  const downMs = opts.downMs ?? 400;
  const recoverMs = opts.recoverMs ?? 30_000;
  const log = opts.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'quire-relay-faults-'));
  await mkdir(join(root, 'redis'));
  const dataDir = join(root, 'data');
  const [redisPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
  const relayEnv = {
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RELAY_REDIS_PREFIX: `quire:faults:${crypto.randomUUID()}:`,
    RELAY_ANSWER_TIMEOUT_MS: String(opts.answerTimeoutMs ?? 3000),
    RELAY_PULL_WAIT_MS: '1000',
    RELAY_SHUTDOWN_GRACE_MS: '3000',
    RELAY_QUEUE_KEY: 'reliability-test-queue-key-0123456789abcdef',
  };
  const violations: string[] = [];
  const sent: Sent[] = [];
  const serverLog: Record<string, number> = {};
  const client = httpClient({ keepAlive: false, timeoutMs: 60_000 });
  let redis: Proc | null = null;
  let relayA: Proc | null = null;
  let relayB: Proc | null = null;
  let srv: KeyedServer | null = null;
  try {
    redis = await startRedisProc(redisPort, join(root, 'redis'));
    relayA = await startRelayProc(portA, relayEnv, 'relay-a');
    relayB = await startRelayProc(portB, relayEnv, 'relay-b');
    const watch = (s: KeyedServer) =>
      s.server.onLine((l) => {
        if (l.msg !== 'request' || !(l.method === 'POST' || l.method === 'DELETE')) return;
        if (l.method === 'POST' && l.path !== '/api/v1/notes') return;
        const k = `${l.method} ${l.status}`;
        serverLog[k] = (serverLog[k] ?? 0) + 1;
      });
    srv = await keyedServer(dataDir, { relayUrl: `http://127.0.0.1:${portB}` });
    watch(srv);
    const key = srv.key;
    const base = `http://127.0.0.1:${portA}/r/${srv.serverId}/api/v1`;

    let stop = false;
    const worker = async (w: number) => {
      const rng = createRng(subSeed(opts.seed, w));
      const mine: string[] = []; // acknowledged creates, not deleted or touched by a doubtful call since
      let n = 0;
      while (!stop) {
        const pick = rng.next();
        const start = performance.now();
        let s: Sent;
        if (pick < 0.4 || mine.length === 0) {
          const path = `faults/w${w}/n${n++}.md`;
          const content = `# ${path}\n[[faults/w${(w + 1) % clients}/n0]] ${'body '.repeat(rng.int(1, 200))}\n`;
          const out = await client.request('POST', `${base}/notes`, {
            headers: key,
            body: { path, content },
          });
          s = { op: 'create', path, content, start, out };
          if (out.status === 201) mine.push(path);
        } else if (pick < 0.7) {
          const path = mine[rng.int(0, mine.length - 1)]!;
          s = {
            op: 'read',
            path,
            start,
            out: await client.request('GET', `${base}/notes/${encodeURIComponent(path)}`, { headers: key }),
          };
        } else if (pick < 0.85) {
          s = {
            op: 'list',
            path: '',
            start,
            out: await client.request('GET', `${base}/notes`, { headers: key }),
          };
        } else {
          const path = mine.splice(rng.int(0, mine.length - 1), 1)[0]!;
          s = {
            op: 'delete',
            path,
            start,
            out: await client.request('DELETE', `${base}/notes/${encodeURIComponent(path)}`, {
              headers: key,
            }),
          };
        }
        s.end = performance.now();
        sent.push(s);
        if (s.out.status === 0 || s.out.status >= 500) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const load = Array.from({ length: clients }, (_, w) => worker(w));
    const oks = (since: number) =>
      sent.filter((s) => s.start >= since && s.out.status >= 200 && s.out.status < 300).length;
    const outcomesSince = (since: number) => {
      const o: Record<string, number> = {};
      for (const s of sent)
        if (s.start >= since) o[`${s.op} ${label(s.out)}`] = (o[`${s.op} ${label(s.out)}`] ?? 0) + 1;
      return o;
    };
    const faults: FaultReport[] = [];
    const windows: { name: string; from: number; to: number }[] = [];
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await until('traffic through the relay', () => oks(0) >= 20, recoverMs);

    const fault = async (name: string, breakIt: () => Promise<void>, mend: () => Promise<void>) => {
      await pause(settleMs);
      const began = performance.now();
      await breakIt();
      await pause(downMs);
      await mend();
      const mended = performance.now();
      try {
        await until(`traffic to flow again after: ${name}`, () => oks(mended) >= 10, recoverMs);
      } catch (err) {
        violations.push(String(err instanceof Error ? err.message : err));
      }
      windows.push({ name, from: began, to: mended });
      const report = {
        fault: name,
        recoveredMs: Math.round(performance.now() - mended),
        outcomes: outcomesSince(began),
      };
      faults.push(report);
      log(`${name}: flowing again ${report.recoveredMs} ms after the restart`);
    };

    await fault(
      'Redis killed and started again (empty)',
      async () => redis!.kill(),
      async () => {
        redis = await startRedisProc(redisPort, join(root, 'redis'));
      },
    );
    await fault(
      "relay B (the connector's) killed and started again",
      async () => relayB!.kill(),
      async () => {
        relayB = await startRelayProc(portB, relayEnv, 'relay-b');
      },
    );
    await fault(
      'relay B restarted gracefully (SIGTERM)',
      async () => {
        relayB!.signal('SIGTERM');
        await relayB!.exited;
      },
      async () => {
        relayB = await startRelayProc(portB, relayEnv, 'relay-b');
      },
    );
    await fault(
      RESTART_A,
      async () => {
        relayA!.signal('SIGTERM');
        await relayA!.exited;
      },
      async () => {
        relayA = await startRelayProc(portA, relayEnv, 'relay-a');
      },
    );
    await fault(
      'note server (and its connector) killed and started again',
      async () => srv!.server.kill(),
      async () => {
        srv = await keyedServer(dataDir, { relayUrl: `http://127.0.0.1:${portB}` });
        watch(srv);
      },
    );
    await pause(settleMs);
    stop = true;
    await Promise.all(load);

    // Everything flows again on its own: a calm run of requests all succeed.
    for (let i = 0; i < 10; i++) {
      const out = await client.request('GET', `${base}/notes`, { headers: key });
      if (out.status !== 200) violations.push(`after the faults a request answered ${label(out)}`);
    }

    const checked = await checkAnswers({
      sent,
      windows,
      vault: join(dataDir, 'notes'),
      serverLog,
      resetFault: RESTART_A,
    });
    violations.push(...checked.violations);
    return { requests: sent.length, faults, ...checked, violations };
  } finally {
    client.close();
    await srv?.server.kill();
    await relayA?.kill();
    await relayB?.kill();
    await redis?.kill();
    await rm(root, { recursive: true, force: true });
  }
}
