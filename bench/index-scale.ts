/**
 * The note index at vault scale, against the read-and-hash floor measured in the same run.
 * Per size: the floor (bench/read-hash-floor.mjs), then the real server as `npm start` runs it
 * (`node dist/server/main.js`, bundled first): spawn to health 200, spawn to the first full
 * `GET /api/v1/notes` cold (no index cache) and warm, RSS at both; one-client creates and updates
 * with fsync on and off and the longest event-loop stall meanwhile (bench/eld-probe.mjs); health
 * req/s with wrk (server on CPU 0, wrk on CPU 1); the index work of one update in-process.
 * For 10k to 100k notes it adds the list (its gzip share in the spec's shape and as
 * `?format=columns`, the server CPU of the first list after a write), a read-and-write mix, and a
 * growth column per doubling.
 * The suite's `start` (`npm run bench -- --only start`: 1,000 notes quick, 10k and 50k with --full;
 * BENCH_START_SIZES names others). `npm run bench:scale` runs 10k, 50k and 100k.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from './children.ts';
import { ensureVault } from './generate-vault.ts';
import { median } from './load.ts';
import type { Timing } from './update.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const WRITES_DIR = 'bench-writes';

/** What one size measured; times in ms, memory in MB. */
export interface IndexScaleResult {
  notes: number;
  vaultMB: number;
  floorMs: number;
  healthMs: number;
  coldListMs: number;
  warmListMs: number;
  coldRssMB: number;
  warmRssMB: number;
  create: { on: WriteRun; off: WriteRun };
  update: { on: WriteRun; off: WriteRun };
  stallMs: { on: number; off: number };
  indexWork: Timing;
  saveCacheMs: number;
  saveBlockMs: number;
  /** The save after 200 updates (a journal append); absent in results from before layout 4. */
  journalSaveMs?: number;
  journalBlockMs?: number;
  healthRps: number | null;
  /** The list; absent in results from before. */
  list?: ListFigures;
  /** The read-and-write mix. */
  mix?: MixResult;
}
/** The full list's sizes and costs on a warm server. */
export interface ListFigures {
  /** The first full list's own request (the one that answered 200 at start), ms. */
  firstRequestMs: number;
  rawMB: number;
  /** gzip bytes / raw bytes of the spec's list, % (and of `?format=columns`, against the same raw). */
  gzipShare: number;
  columnsGzipShare: number;
  /**
   * Server CPU (every thread) of the first gzip list after a one-note update (300 ms after it, so the
   * write's own after-work is not counted), ms, median of 15.
   */
  afterWriteCpuMs: number;
  /** Wall time of that request, ms, median. */
  afterWriteMs: number;
}
/** Clients reading notes, listing and updating at once for a fixed time. */
export interface MixResult {
  clients: number;
  seconds: number;
  opsPerSecond: number;
  read: { count: number; p50: number; p99: number };
  list: { count: number; p50: number; p99: number };
  write: { count: number; p50: number; p99: number };
  errors: number;
}
interface WriteRun {
  perSecond: number;
  p50: number;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
const rssMB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Server {
  proc: ChildProcess;
  base: string;
  healthMs: number;
  listMs: number;
  /** The duration of the list request that answered 200 first. */
  listRequestMs: number;
  rss: number;
  ask(type: string): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** Spawns the bundled server and waits for health 200, then for the first full list. */
async function startServer(opts: {
  vault: string;
  data: string;
  env?: Record<string, string>;
  pin?: boolean;
}) {
  const port = await freePort();
  const args = ['--import', join(repo, 'bench/eld-probe.mjs'), join(repo, 'dist/server/main.js')];
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: opts.data,
    VAULT_DIR: opts.vault,
    PAIRING_MODE: 'open-port',
    SERVICE_AUTH_MODE: 'none',
    RATE_LIMIT: '0',
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const started = performance.now();
  const proc = opts.pin
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], {
        env,
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-2000);
  });
  const base = `http://127.0.0.1:${port}`;
  let lastRequestMs = 0;
  const until = async (path: string) => {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
      try {
        const t = performance.now();
        const res = await fetch(base + path, { headers: { 'accept-encoding': 'gzip' } });
        await res.arrayBuffer();
        lastRequestMs = performance.now() - t;
        if (res.status === 200) return performance.now() - started;
      } catch {}
      await sleep(path.endsWith('health') ? 2 : 10);
    }
  };
  const healthMs = await until('/api/v1/health');
  const listMs = await until('/api/v1/notes');
  const listRequestMs = lastRequestMs;
  const rss = rssMB(proc.pid!);
  // What follows (writes answer 503 until then) waits for the index ready.
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
    const h = (await fetch(`${base}/api/v1/health`).then((r) => r.json())) as {
      data?: { index?: { state?: string } };
    };
    if (h.data?.index?.state === 'ready') break;
    await sleep(5);
  }
  const server: Server = {
    proc,
    base,
    healthMs,
    listMs,
    listRequestMs,
    rss,
    ask: (type) =>
      new Promise((resolve) => {
        const on = (m: { type?: string }) => {
          if (m.type !== type) return;
          proc.off('message', on);
          resolve(m as Record<string, number>);
        };
        proc.on('message', on);
        proc.send({ type });
      }),
    stop: async () => {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
  return server;
}

/** One client, sequential: `count` creates then `count` updates of the same notes. */
async function writes(s: Server, tag: string, count: number) {
  const one = async (method: string, path: string, content: string) => {
    const t = performance.now();
    const url =
      method === 'POST' ? `${s.base}/api/v1/notes` : `${s.base}/api/v1/notes/${encodeURIComponent(path)}`;
    const res = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(method === 'POST' ? { path, content } : { content }),
    });
    await res.arrayBuffer();
    if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status}`);
    return performance.now() - t;
  };
  const body = (i: number, v: string) =>
    `# Bench ${tag} ${i}\n\nA note written by the benchmark, version ${v}, linking [[Bench ${tag} ${i + 1}]] and #bench.\n`;
  for (let i = 0; i < 20; i++) await one('POST', `${WRITES_DIR}/warm-${tag}-${i}.md`, body(i, 'w'));
  await s.ask('eld-reset');
  const run = async (method: string, v: string): Promise<WriteRun> => {
    const ms: number[] = [];
    const t = performance.now();
    for (let i = 0; i < count; i++) ms.push(await one(method, `${WRITES_DIR}/${tag}-${i}.md`, body(i, v)));
    return { perSecond: (count * 1000) / (performance.now() - t), p50: median(ms) };
  };
  const create = await run('POST', 'one');
  const update = await run('PUT', 'two');
  const eld = await s.ask('eld');
  return { create, update, stallMs: eld.maxMs ?? Number.NaN };
}

/** Health req/s with wrk on CPU 1 (the server runs on CPU 0). Null when wrk is missing. */
function wrkHealth(base: string): number | null {
  if (!existsSync('/usr/bin/wrk')) return null;
  const out = execFileSync(
    'taskset',
    ['-c', '1', '/usr/bin/wrk', '-t1', '-c32', '-d5s', `${base}/api/v1/health`],
    {
      encoding: 'utf8',
    },
  );
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
}

/** GET without decompression: status, raw bytes and headers. */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<{ status: number; bytes: Buffer; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(parts), headers: res.headers }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const notePath = (p: string) => `/api/v1/notes/${p.split('/').map(encodeURIComponent).join('/')}`;
const putNote = async (base: string, path: string, content: string) => {
  const res = await rawGet(
    base,
    notePath(path),
    { 'content-type': 'application/json' },
    'PUT',
    JSON.stringify({ content }),
  );
  if (res.status !== 200) throw new Error(`PUT ${path}: ${res.status}`);
};
const p = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN;

/** Quiet time between a write and the list measured after it. */
const LIST_SETTLE_MS = 300;

/** The list's sizes (spec shape and columns, gzip) and the server CPU of the first list after a write. */
async function listFigures(s: Server, paths: string[]): Promise<ListFigures> {
  const gz = { 'accept-encoding': 'gzip' };
  const plain = await rawGet(s.base, '/api/v1/notes');
  const zipped = await rawGet(s.base, '/api/v1/notes', gz);
  const columns = await rawGet(s.base, '/api/v1/notes?format=columns', gz);
  const cpu = async () => (await s.ask('cpu')).cpuUs ?? Number.NaN;
  const cpuMs: number[] = [];
  const wallMs: number[] = [];
  for (let i = 0; i < 15; i++) {
    const path = paths[(i * 7919) % paths.length]!;
    await putNote(s.base, path, `# Edited ${i}\n\nA changed body, round ${i}.\n`);
    // The write's own after-work (history, journal, the watcher seeing the file) is not the list's.
    await sleep(LIST_SETTLE_MS);
    const c0 = await cpu();
    const c1 = await cpu();
    const t = performance.now();
    const res = await rawGet(s.base, '/api/v1/notes', gz);
    wallMs.push(performance.now() - t);
    const c2 = await cpu();
    if (res.status !== 200) throw new Error(`list after write: ${res.status}`);
    // c1 - c0 is the cost of one IPC round trip; subtract it.
    cpuMs.push((c2 - c1 - (c1 - c0)) / 1000);
  }
  return {
    firstRequestMs: s.listRequestMs,
    rawMB: plain.bytes.length / 1e6,
    gzipShare: (100 * zipped.bytes.length) / plain.bytes.length,
    columnsGzipShare: (100 * columns.bytes.length) / plain.bytes.length,
    afterWriteCpuMs: median(cpuMs),
    afterWriteMs: median(wallMs),
  };
}

/**
 * `clients` clients for `seconds`, each in a loop: 8 in 10 note reads (random notes), 1 in 10 full
 * gzip lists, 1 in 10 updates of a random note (the list after it is rebuilt). Latencies in ms.
 */
async function mix(s: Server, paths: string[], clients: number, seconds: number): Promise<MixResult> {
  const lat = { read: [] as number[], list: [] as number[], write: [] as number[] };
  let errors = 0;
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const end = performance.now() + seconds * 1000;
  const client = async (c: number) => {
    let i = 0;
    while (performance.now() < end) {
      const r = rand();
      const path = paths[Math.floor(rand() * paths.length)]!;
      const t = performance.now();
      try {
        if (r < 0.8) {
          const res = await rawGet(s.base, notePath(path), { 'accept-encoding': 'gzip' });
          if (res.status !== 200) errors++;
          lat.read.push(performance.now() - t);
        } else if (r < 0.9) {
          const res = await rawGet(s.base, '/api/v1/notes', { 'accept-encoding': 'gzip' });
          if (res.status !== 200) errors++;
          lat.list.push(performance.now() - t);
        } else {
          await putNote(
            s.base,
            path,
            `# Mixed ${c} ${i}\n\nA body written by the mix, [[${paths[0]!.replace(/\.md$/, '')}]].\n`,
          );
          lat.write.push(performance.now() - t);
        }
      } catch {
        errors++;
      }
      i++;
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  const stat = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { count: xs.length, p50: p(sorted, 0.5), p99: p(sorted, 0.99) };
  };
  const total = lat.read.length + lat.list.length + lat.write.length;
  return {
    clients,
    seconds,
    opsPerSecond: total / seconds,
    read: stat(lat.read),
    list: stat(lat.list),
    write: stat(lat.write),
    errors,
  };
}

/** Measures one vault size. */
export async function indexScaleSize(opts: {
  root: string;
  notes: number;
  seed: number;
  writes: number;
  coldRuns?: number;
  warmRuns?: number;
  /** Seconds of the read-and-write mix (0 skips it). */
  mixSeconds?: number;
  /** false skips the in-process index work child (it loads the whole vault into memory). */
  indexWork?: boolean;
  log: (l: string) => void;
}): Promise<IndexScaleResult> {
  const { log } = opts;
  const { dir: vault, manifest } = await ensureVault(opts.root, opts.notes, opts.seed);
  await rm(join(vault, WRITES_DIR), { recursive: true, force: true });
  const runs = opts.coldRuns ?? (opts.notes <= 10_000 ? 3 : 1);
  const floors: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, [join(repo, 'bench/read-hash-floor.mjs'), vault], {
      encoding: 'utf8',
    });
    floors.push((JSON.parse(out) as { ms: number }).ms);
  }
  log(`${opts.notes}: floor ${median(floors).toFixed(0)} ms`);
  const tmp = await mkdtemp(join(tmpdir(), 'quire-index-scale-'));
  try {
    const cold: Server[] = [];
    let data = '';
    for (let i = 0; i < runs; i++) {
      data = join(tmp, `data-${i}`);
      const s = await startServer({ vault, data });
      cold.push(s);
      await s.stop();
    }
    log(`${opts.notes}: cold list ${median(cold.map((s) => s.listMs)).toFixed(0)} ms`);
    const warm: Server[] = [];
    for (let i = 0; i < (opts.warmRuns ?? 3); i++) {
      const s = await startServer({ vault, data });
      warm.push(s);
      await s.stop();
    }
    log(`${opts.notes}: warm list ${median(warm.map((s) => s.listMs)).toFixed(0)} ms`);
    const on = await startServer({ vault, data, pin: true });
    const list = await listFigures(on, manifest.paths);
    log(
      `${opts.notes}: list ${list.rawMB.toFixed(1)} MB, gzip ${list.gzipShare.toFixed(1)}% (columns ${list.columnsGzipShare.toFixed(1)}%), first list after a write ${list.afterWriteCpuMs.toFixed(1)} ms CPU`,
    );
    const mixSeconds = opts.mixSeconds ?? 10;
    const mixed = mixSeconds > 0 ? await mix(on, manifest.paths, 8, mixSeconds) : undefined;
    if (mixed) log(`${opts.notes}: mix ${mixed.opsPerSecond.toFixed(0)} ops/s, ${mixed.errors} errors`);
    const wOn = await writes(on, 'on', opts.writes);
    const healthRps = wrkHealth(on.base);
    await on.stop();
    const off = await startServer({ vault, data, pin: true, env: { FSYNC: '0' } });
    const wOff = await writes(off, 'off', opts.writes);
    await off.stop();
    await rm(join(vault, WRITES_DIR), { recursive: true, force: true });
    log(
      `${opts.notes}: create ${wOn.create.perSecond.toFixed(0)}/s fsync on, ${wOff.create.perSecond.toFixed(0)}/s off`,
    );
    type Work = {
      type: string;
      update: Timing;
      saveCacheMs: number;
      saveBlockMs: number;
      journalSaveMs: number;
      journalBlockMs: number;
    };
    const nan = Number.NaN;
    const work: Work =
      opts.indexWork === false
        ? {
            type: 'skipped',
            update: { median: nan, p99: nan } as Timing,
            saveCacheMs: nan,
            saveBlockMs: nan,
            journalSaveMs: nan,
            journalBlockMs: nan,
          }
        : await startChild(join(repo, 'bench/index-work-child.ts'), {
            VAULT_DIR: vault,
            SEED: String(opts.seed),
            UPDATES: '200',
          }).waitFor<Work>('result', 900_000);
    return {
      notes: opts.notes,
      vaultMB: manifest.bytes / 1e6,
      floorMs: median(floors),
      healthMs: median(cold.map((s) => s.healthMs)),
      coldListMs: median(cold.map((s) => s.listMs)),
      warmListMs: median(warm.map((s) => s.listMs)),
      coldRssMB: median(cold.map((s) => s.rss)),
      warmRssMB: median(warm.map((s) => s.rss)),
      create: { on: wOn.create, off: wOff.create },
      update: { on: wOn.update, off: wOff.update },
      stallMs: { on: wOn.stallMs, off: wOff.stallMs },
      indexWork: work.update,
      saveCacheMs: work.saveCacheMs,
      saveBlockMs: work.saveBlockMs,
      journalSaveMs: work.journalSaveMs,
      journalBlockMs: work.journalBlockMs,
      healthRps,
      list,
      ...(mixed ? { mix: mixed } : {}),
    };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Spawn to health on an empty vault (median of 5). */
async function emptyVaultHealth(): Promise<number> {
  const tmp = await mkdtemp(join(tmpdir(), 'quire-empty-'));
  try {
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await startServer({ vault: join(tmp, `v${i}`), data: join(tmp, `d${i}`) });
      ms.push(s.healthMs);
      await s.stop();
    }
    return median(ms);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');

/** Runs every size: the markdown section, each size's figures, and the empty vault's spawn to health. */
export async function indexScaleBench(opts: {
  root: string;
  sizes: number[];
  seed: number;
  writes: number;
  coldRuns?: number;
  warmRuns?: number;
  mixSeconds?: number;
  indexWork?: boolean;
  log: (l: string) => void;
}): Promise<{ section: string; rows: IndexScaleResult[]; empty: number }> {
  const build = spawnSync('npm', ['run', 'build:server'], { cwd: repo, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build:server failed: ${build.stderr}`);
  const empty = await emptyVaultHealth();
  opts.log(`empty vault: spawn to health ${empty.toFixed(0)} ms`);
  const rows: IndexScaleResult[] = [];
  for (const notes of opts.sizes) {
    const r = await indexScaleSize({ ...opts, notes });
    // The whole row at once, so a run cut short still leaves every size it finished.
    opts.log(`${notes}: ${JSON.stringify(r)}`);
    rows.push(r);
  }
  return { section: renderIndexScale(rows, { empty, writes: opts.writes }), rows, empty };
}

/**
 * The markdown section: a column per size, then per pair of neighbouring sizes the growth per
 * doubling of the vault ((b / a) ^ (1 / log2(nb / na)): 2.0x is linear; more is worse than
 * linear), then the targets (10k / 50k / 100k).
 */
export function renderIndexScale(rows: IndexScaleResult[], o: { empty: number; writes: number }): string {
  const k = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
  const pairs = rows.slice(1).map((r, i) => [rows[i]!, r] as const);
  const lines = [
    `Note index at scale: \`node dist/server/main.js\` as \`npm start\` runs it; one client for writes (${o.writes} creates, then ${o.writes} updates); wrk -t1 -c32 -d5s for health, server pinned to CPU 0 and wrk to CPU 1 (writes, the list figures and the mix also on the pinned server). Floor: \`node bench/read-hash-floor.mjs\` (read + SHA-256 of every file, 32 in flight), same run. Spawn to health on an empty vault: **${f0(o.empty)} ms** (target < 300 ms). "per doubling": the growth of the figure each time the vault doubles, from one size to the next (2.0x is linear in the vault, above 2.0x worse than linear; for shares and per-operation times 1.0x is flat).`,
    '',
    `| figure | ${rows.map((r) => `${r.notes.toLocaleString('en')} notes (${f0(r.vaultMB)} MB)`).join(' | ')} | ${pairs.map(([a, b]) => `per doubling ${k(a.notes)}→${k(b.notes)}`).join(' | ')} | target (10k / 50k / 100k) |`,
    `|---|${rows.map(() => '---|').join('')}${pairs.map(() => '---|').join('')}---|`,
  ];
  const growth = (a: number, b: number, na: number, nb: number) =>
    Number.isFinite(a) && Number.isFinite(b) && a > 0 && b > 0
      ? `${((b / a) ** (1 / Math.log2(nb / na))).toFixed(2)}x`
      : '-';
  const row = (
    name: string,
    cell: (r: IndexScaleResult) => string,
    tgt: string,
    value?: (r: IndexScaleResult) => number,
  ) =>
    lines.push(
      `| ${name} | ${rows.map(cell).join(' | ')} | ${pairs
        .map(([a, b]) => (value ? growth(value(a), value(b), a.notes, b.notes) : '-'))
        .join(' | ')} | ${tgt} |`,
    );
  const l = (r: IndexScaleResult) => r.list;
  row(
    'read-and-hash floor, ms',
    (r) => f0(r.floorMs),
    'measured',
    (r) => r.floorMs,
  );
  row(
    'spawn to health 200, ms',
    (r) => f0(r.healthMs),
    '-',
    (r) => r.healthMs,
  );
  row(
    'spawn to first full list, cold, ms',
    (r) => f0(r.coldListMs),
    '< 3,000 / < 12,000 / < 25,000',
    (r) => r.coldListMs,
  );
  row(
    'cold list as a multiple of the floor',
    (r) => `${f1(r.coldListMs / r.floorMs)}x`,
    '-',
    (r) => r.coldListMs / r.floorMs,
  );
  row(
    'spawn to first full list, warm, ms',
    (r) => f0(r.warmListMs),
    '< 400 / < 2,000 / < 4,000',
    (r) => r.warmListMs,
  );
  row(
    'RSS after first list, cold, MB',
    (r) => f0(r.coldRssMB),
    '< 200 / < 600 / < 800',
    (r) => r.coldRssMB,
  );
  row(
    'RSS after first list, warm, MB',
    (r) => f0(r.warmRssMB),
    '< 120 / < 400 / < 800',
    (r) => r.warmRssMB,
  );
  row(
    'first full list request (warm start, gzip), ms',
    (r) => (l(r) ? f0(l(r)!.firstRequestMs) : '-'),
    '-',
    (r) => l(r)?.firstRequestMs ?? Number.NaN,
  );
  row(
    'full list, raw MB',
    (r) => (l(r) ? f1(l(r)!.rawMB) : '-'),
    '-',
    (r) => l(r)?.rawMB ?? Number.NaN,
  );
  row(
    "gzip'd full list, share of raw (spec shape)",
    (r) => (l(r) ? `${f1(l(r)!.gzipShare)}%` : '-'),
    '<= 12%',
    (r) => l(r)?.gzipShare ?? Number.NaN,
  );
  row(
    "gzip'd `?format=columns`, share of the spec list's raw",
    (r) => (l(r) ? `${f1(l(r)!.columnsGzipShare)}%` : '-'),
    '<= 12%',
    (r) => l(r)?.columnsGzipShare ?? Number.NaN,
  );
  row(
    'first gzip list after a write, server CPU, ms (wall)',
    (r) => (l(r) ? `${f1(l(r)!.afterWriteCpuMs)} (${f1(l(r)!.afterWriteMs)})` : '-'),
    '< 10 / < 40 / -',
    (r) => l(r)?.afterWriteCpuMs ?? Number.NaN,
  );
  const m = (r: IndexScaleResult) => r.mix;
  row(
    'read-and-write mix, ops/s (8 clients: 80% note reads, 10% full gzip lists, 10% updates)',
    (r) => (m(r) ? f0(m(r)!.opsPerSecond) : '-'),
    '-',
    (r) => m(r)?.opsPerSecond ?? Number.NaN,
  );
  row(
    'mix: note read p50 / p99, ms',
    (r) => (m(r) ? `${f1(m(r)!.read.p50)} / ${f1(m(r)!.read.p99)}` : '-'),
    '-',
    (r) => m(r)?.read.p50 ?? Number.NaN,
  );
  row(
    'mix: full list p50 / p99, ms',
    (r) => (m(r) ? `${f1(m(r)!.list.p50)} / ${f1(m(r)!.list.p99)}` : '-'),
    '-',
    (r) => m(r)?.list.p50 ?? Number.NaN,
  );
  row(
    'mix: update p50 / p99, ms',
    (r) => (m(r) ? `${f1(m(r)!.write.p50)} / ${f1(m(r)!.write.p99)}` : '-'),
    '-',
    (r) => m(r)?.write.p50 ?? Number.NaN,
  );
  row(
    'create notes/s, fsync on (p50 ms)',
    (r) => `${f0(r.create.on.perSecond)} (${f1(r.create.on.p50)})`,
    '>= 150',
    (r) => r.create.on.p50,
  );
  row(
    'create notes/s, fsync off (p50 ms)',
    (r) => `${f0(r.create.off.perSecond)} (${f1(r.create.off.p50)})`,
    '>= 500',
    (r) => r.create.off.p50,
  );
  row(
    'update notes/s, fsync on (p50 ms)',
    (r) => `${f0(r.update.on.perSecond)} (${f1(r.update.on.p50)})`,
    '-',
    (r) => r.update.on.p50,
  );
  row(
    'update notes/s, fsync off (p50 ms)',
    (r) => `${f0(r.update.off.perSecond)} (${f1(r.update.off.p50)})`,
    '-',
    (r) => r.update.off.p50,
  );
  row(
    'index work per update, ms (median / p99)',
    (r) => `${f2(r.indexWork.median)} / ${f2(r.indexWork.p99)}`,
    '< 2',
    (r) => r.indexWork.median,
  );
  row(
    'longest event-loop stall during writes, ms (fsync on / off)',
    (r) => `${f0(r.stallMs.on)} / ${f0(r.stallMs.off)}`,
    '<= 20',
    (r) => r.stallMs.on,
  );
  row(
    'index cache snapshot: longest event-loop block (whole save), ms',
    (r) => `${f0(r.saveBlockMs)} (${f0(r.saveCacheMs)})`,
    '<= 20 / <= 100',
    (r) => r.saveCacheMs,
  );
  row(
    'index cache journal save after 200 updates: longest block (whole save), ms',
    (r) => (r.journalBlockMs === undefined ? '-' : `${f0(r.journalBlockMs)} (${f0(r.journalSaveMs ?? 0)})`),
    '<= 20 / <= 100',
    (r) => r.journalSaveMs ?? Number.NaN,
  );
  row(
    'health req/s (wrk, 32 connections)',
    (r) => (r.healthRps === null ? 'no wrk' : f0(r.healthRps)),
    'same at every size',
    (r) => r.healthRps ?? Number.NaN,
  );
  return `${lines.join('\n')}\n`;
}
