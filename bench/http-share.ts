/**
 * The read routes as a share of a bare node:http server, measured with wrk in the same run, each
 * beside its target. The server runs in api-key mode at LOG_LEVEL=info, as users run it; the note
 * routes carry X-Service-Key. Cache misses: a second server with a small NOTE_CACHE_BYTES, read in
 * a round robin over every note (more notes than its cache holds).
 *
 * The suite's `reads` (`npm run bench -- --only reads`; 1,000 notes quick, 10,000 with --full).
 * Needs wrk (`apt-get install wrk`).
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { type BenchChild, settle, startChild } from './children.ts';
import { ensureVault } from './generate-vault.ts';
import { canPin, pin, type WrkResult, wrk } from './wrk.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const ORIGIN = 'http://localhost:5173';

export interface HttpShareOptions {
  root: string;
  runDir: string;
  notes: number;
  seconds: number;
  connections: number;
  /** Rounds of (bare, route) per route. */
  rounds: number;
  log: (line: string) => void;
}

interface Row extends WrkResult {
  target?: string;
  /** Median of the per-round shares of bare node:http, in percent. */
  share?: number;
  /** Median bare node:http req/s of the rounds. */
  bare?: number;
  /** Median server CPU per request, µs (from /proc; every thread of the process). */
  us?: number;
  /** Median of (bare CPU µs per request / route CPU µs per request), in percent. */
  cpuShare?: number;
  ok?: boolean | null;
}

/** CPU time (user + system, every thread) of process `pid` so far, in ms, from /proc (Linux). */
async function cpuMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in ticks of 1/100 s
  } catch {
    return Number.NaN;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function startServer(vault: string, dataDir: string, env: Record<string, string> = {}) {
  const child = startChild(here('./server-child.ts'), {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    VAULT_DIR: vault,
    LOG_LEVEL: 'info',
    SERVICE_AUTH_MODE: 'api-key',
    CORS_ORIGINS: ORIGIN,
    ...env,
  });
  const ready = await child.waitFor<{ type: string; url: string }>('ready', 600_000);
  // After `index ready` the server saves its index cache, starts the watcher and reconciles:
  // seconds of CPU that were counted against the first route measured (health).
  await settle(child.pid);
  const creds = JSON.parse(await readFile(join(dataDir, 'credentials.json'), 'utf8')) as {
    firstKeyPlain: string;
  };
  return { child, url: ready.url, key: creds.firstKeyPlain };
}

/** Every read-route figure beside its target and the bare node:http ceiling of the same run. */
export async function httpShareBench(o: HttpShareOptions): Promise<string> {
  const vault = await ensureVault(o.root, o.notes);
  const work = join(o.runDir, `http-vault-${o.notes}`);
  // Timestamps kept and a data dir kept across runs: the server starts from its index cache.
  await cp(vault.dir, work, { recursive: true, preserveTimestamps: true });
  const dataDir = join(o.root, `http-data-${o.notes}`);
  const pinned = await canPin();
  const cpu = pinned ? 1 : undefined;
  const base = { connections: o.connections, seconds: o.seconds, tmp: o.runDir, cpu };
  const children: BenchChild[] = [];
  try {
    const ceiling = startChild(here('./ceiling-child.ts'), {});
    children.push(ceiling);
    const c = await ceiling.waitFor<{ type: string; url: string }>('ready');
    if (pinned) await pin(ceiling.pid, 0);
    const server = await startServer(work, dataDir);
    children.push(server.child);
    if (pinned) await pin(server.child.pid, 0);
    const auth = { 'x-service-key': server.key };
    const paths = vault.manifest.paths.map(
      (p) => `/api/v1/notes/${p.split('/').map(encodeURIComponent).join('/')}`,
    );
    const one = paths[0]!;
    const probe = await fetch(server.url + one, { headers: auth });
    const etag = probe.headers.get('etag') ?? '';
    const list = await fetch(`${server.url}/api/v1/notes`, { headers: auth });
    const listEtag = list.headers.get('etag') ?? '';
    const listBytes = (await list.arrayBuffer()).byteLength;
    const gz = await fetch(`${server.url}/api/v1/notes`, { headers: { ...auth, 'accept-encoding': 'gzip' } });
    const gzBytes = Number(gz.headers.get('content-length') ?? Number.NaN);
    const gzRaw = await rawGzipSize(server.url, server.key);
    o.log(`list ${listBytes} bytes, gzip ${gzRaw.bytes} (${gz.headers.get('content-encoding')}, ${gzBytes})`);

    const rows: Row[] = [];
    // On a shared machine the load of others drifts: every route is measured in rounds, each
    // right after a bare node:http measurement with the same connections, and its share is the
    // median of the per-round ratios.
    const bareOf = new Map<number, number[]>();
    const measure = async (
      label: string,
      url: string,
      extra: Partial<Parameters<typeof wrk>[0]> & { pid?: number } = {},
    ): Promise<Row> => {
      const runs: { r: WrkResult; bare: WrkResult; us: number; bareUs: number }[] = [];
      // The server this route is measured on: the small-cache server's row used to read the
      // stopped first server's /proc entry (NaN in the CPU column).
      const { pid: given, ...wrkExtra } = extra;
      const pid = given ?? server.child.pid;
      // One unmeasured second first: the first round no longer carries the JIT's warm-up.
      await wrk({ ...base, label, url, ...wrkExtra, seconds: 1 });
      for (let i = 0; i < o.rounds; i++) {
        const conns = extra.connections ?? o.connections;
        const b0 = await cpuMs(ceiling.pid);
        const bare = await wrk({ ...base, label: 'bare', url: c.url, connections: conns });
        const b1 = await cpuMs(ceiling.pid);
        const r0 = await cpuMs(pid);
        const r = await wrk({ ...base, label, url, ...wrkExtra });
        const r1 = await cpuMs(pid);
        const perReq = (ms: number, w: WrkResult) => (ms * 1000) / (w.rps * o.seconds);
        runs.push({ r, bare, us: perReq(r1 - r0, r), bareUs: perReq(b1 - b0, bare) });
        bareOf.set(conns, [...(bareOf.get(conns) ?? []), bare.rps]);
      }
      const mid = <T>(xs: T[], f: (x: T) => number) => median(xs.map(f));
      const row: Row = {
        label,
        rps: mid(runs, (x) => x.r.rps),
        p50: mid(runs, (x) => x.r.p50),
        p99: mid(runs, (x) => x.r.p99),
        non2xx: runs.reduce((a, x) => a + x.r.non2xx, 0),
        errors: runs.reduce((a, x) => a + x.r.errors, 0),
        share: Math.round(mid(runs, (x) => x.r.rps / x.bare.rps) * 100),
        bare: mid(runs, (x) => x.bare.rps),
        us: mid(runs, (x) => x.us),
        cpuShare: Math.round(mid(runs, (x) => x.bareUs / x.us) * 100),
      };
      o.log(
        `${label}: ${Math.round(row.rps)} req/s (${row.share}% of bare ${Math.round(row.bare!)}), ${row.us?.toFixed(0)} µs CPU/req (${row.cpuShare}% of bare by CPU), p50 ${row.p50.toFixed(2)} ms, non-2xx ${row.non2xx}`,
      );
      rows.push(row);
      return row;
    };
    const health = await measure('GET /api/v1/health', `${server.url}/api/v1/health`);
    const noteHit = await measure('GET /api/v1/notes/:path, one note (cached)', server.url + one, {
      headers: auth,
    });
    const noteOrigin = await measure('GET /api/v1/notes/:path, one note, browser Origin', server.url + one, {
      headers: { ...auth, origin: ORIGIN },
    });
    const hot = await measure(
      'GET /api/v1/notes/:path, round robin over all notes (default cache)',
      server.url,
      {
        headers: auth,
        paths,
      },
    );
    const listGz = await measure('GET /api/v1/notes, Accept-Encoding: gzip', `${server.url}/api/v1/notes`, {
      headers: { ...auth, 'accept-encoding': 'gzip' },
    });
    const note304 = await measure(
      'GET /api/v1/notes/:path, If-None-Match (304), 1 connection',
      server.url + one,
      {
        headers: { ...auth, 'if-none-match': etag },
        connections: 1,
      },
    );
    const list304 = await measure(
      'GET /api/v1/notes, If-None-Match (304), 1 connection',
      `${server.url}/api/v1/notes`,
      {
        headers: { ...auth, 'if-none-match': listEtag },
        connections: 1,
      },
    );
    const afterWrite = await listAfterWrite(server.url, server.key, server.child, vault.manifest.paths);
    o.log(`first gzip list after a write: median ${afterWrite.toFixed(1)} ms of server CPU`);
    await server.child.stop();

    const small = await startServer(work, dataDir, { NOTE_CACHE_BYTES: String(1 << 20) });
    children.push(small.child);
    if (pinned) await pin(small.child.pid, 0);
    const miss = await measure(
      `GET /api/v1/notes/:path, round robin over ${o.notes} notes, 1 MiB cache (misses)`,
      small.url,
      {
        headers: { 'x-service-key': small.key },
        paths,
        pid: small.child.pid,
      },
    );
    await small.child.stop();
    await ceiling.stop();
    const bare32 = bareOf.get(o.connections) ?? [];
    const ceil: Row = {
      label: `bare node:http, 110-byte JSON (median of ${bare32.length} runs, min ${Math.round(Math.min(...bare32))}, max ${Math.round(Math.max(...bare32))})`,
      rps: median(bare32),
      p50: Number.NaN,
      p99: Number.NaN,
      non2xx: 0,
      errors: 0,
      share: 100,
    };

    const share = (r: Row) => r.share ?? 100;
    const tgt = (r: Row, target: string, ok: boolean | null) => Object.assign(r, { target, ok });
    tgt(ceil, 'ceiling', null);
    tgt(health, '>= 70% of bare', share(health) >= 70);
    tgt(noteHit, '>= 50% of bare', share(noteHit) >= 50);
    tgt(noteOrigin, '<= 10% slower than without Origin', noteOrigin.rps >= noteHit.rps * 0.9);
    tgt(hot, '—', null);
    tgt(miss, '>= 25% of bare', share(miss) >= 25);
    tgt(listGz, 'p50 < 40 ms', listGz.p50 < 40);
    tgt(note304, 'p50 < 0.3 ms', note304.p50 < 0.3);
    tgt(list304, 'p50 < 0.3 ms', list304.p50 < 0.3);
    const order: Row[] = [ceil, health, noteHit, noteOrigin, hot, miss, listGz, note304, list304];
    const mark = (ok: boolean | null | undefined) =>
      ok === null || ok === undefined ? '' : ok ? 'met' : '**not met**';
    const lines = [
      `### Read routes against bare node:http, ${o.notes} notes, wrk -t1 -c${o.connections} -d${o.seconds}s, ${o.rounds} rounds`,
      '',
      `Server ${pinned ? 'pinned to CPU 0 (`taskset -a -cp 0`), wrk to CPU 1 (`taskset -c 1`)' : 'and wrk not pinned (fewer than 2 CPUs or no taskset)'}; api-key mode with the default rate limits, LOG_LEVEL=info (stdout to a pipe), CORS on; one run.`,
      '',
      'Each row: the median of its rounds; "share" is the median of (route req/s / bare req/s) over rounds, bare measured right before the route with the same connections.',
      '',
      'CPU columns: server CPU time per request from /proc/<pid>/stat (all threads) over the same runs, and the share of bare by CPU = bare µs per request / route µs per request; on a machine shared with other work this is steadier than req/s, whose share depends on what else ran on CPU 0 during each run.',
      '',
      '| route | req/s | share of bare | server CPU µs/req | share of bare by CPU | p50 ms | p99 ms | non-2xx | target | |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...order.map(
        (r) =>
          `| ${r.label} | ${Math.round(r.rps).toLocaleString('en-US')} | ${share(r)}% | ${r.us === undefined ? '' : r.us.toFixed(0)} | ${r.cpuShare === undefined ? '' : `${r.cpuShare}%`} | ${Number.isNaN(r.p50) ? '' : r.p50.toFixed(2)} | ${Number.isNaN(r.p99) ? '' : r.p99.toFixed(2)} | ${r.non2xx} | ${r.target ?? ''} | ${mark(r.ok)} |`,
      ),
      '',
      `| list figure | value | target | |`,
      '|---|---|---|---|',
      `| uncompressed list | ${listBytes.toLocaleString('en-US')} bytes | | |`,
      `| gzip list | ${gzRaw.bytes.toLocaleString('en-US')} bytes (${((gzRaw.bytes / listBytes) * 100).toFixed(1)}%), identical after gunzip: ${gzRaw.identical ? 'yes' : 'NO'} | <= 15% | ${mark(gzRaw.bytes / listBytes <= 0.15)} |`,
      `| first gzip list after a write, server CPU (median of 15) | ${afterWrite.toFixed(1)} ms | < 20 ms | ${mark(afterWrite < 20)} |`,
      '',
    ];
    return lines.join('\n');
  } finally {
    for (const ch of children) await ch.stop().catch(() => null);
  }
}

/** The list's gzip answer size, and whether it gunzips to the identity answer. */
async function rawGzipSize(url: string, key: string): Promise<{ bytes: number; identical: boolean }> {
  const { request } = await import('node:http');
  let encoding = '';
  const get = (enc: string) =>
    new Promise<Buffer>((resolve, reject) => {
      const req = request(
        `${url}/api/v1/notes`,
        { headers: { 'x-service-key': key, 'accept-encoding': enc } },
        (res) => {
          const parts: Buffer[] = [];
          if (enc === 'gzip') encoding = String(res.headers['content-encoding'] ?? '');
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => resolve(Buffer.concat(parts)));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  const gz = await get('gzip');
  const plain = await get('identity');
  if (encoding !== 'gzip') return { bytes: gz.length, identical: false };
  return { bytes: gz.length, identical: gunzipSync(gz).equals(plain) };
}

/** Median server CPU (ms) of the first gzip list after a PUT, the PUT's own CPU excluded. */
export async function listAfterWrite(
  url: string,
  key: string,
  child: BenchChild,
  paths: string[],
): Promise<number> {
  const cpu = async () => (await child.ask<{ type: string; cpuUs: number }>({ type: 'mem' }, 'mem')).cpuUs;
  const out: number[] = [];
  for (let i = 0; i < 15; i++) {
    const path = paths[(i * 7919) % paths.length]!;
    const u = `${url}/api/v1/notes/${path.split('/').map(encodeURIComponent).join('/')}`;
    const put = await fetch(u, {
      method: 'PUT',
      headers: { 'x-service-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ content: `# Edited ${i}\n\nA changed body, round ${i}.\n` }),
    });
    await put.arrayBuffer();
    const c0 = await cpu();
    const c1 = await cpu();
    const res = await fetch(`${url}/api/v1/notes`, {
      headers: { 'x-service-key': key, 'accept-encoding': 'gzip' },
    });
    await res.arrayBuffer();
    const c2 = await cpu();
    // c1 - c0 is the cost of one IPC round trip; subtract it.
    out.push((c2 - c1 - (c1 - c0)) / 1000);
  }
  return median(out);
}
