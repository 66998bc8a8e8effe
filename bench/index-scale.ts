/**
 * Issue 17: the note index at vault scale, against the read-and-hash floor measured in the same run.
 * Per size: the floor (bench/read-hash-floor.mjs), then the real server as `npm start` runs it
 * (`node dist/server/main.js`, bundled first): spawn to health 200, spawn to the first full
 * `GET /api/v1/notes` cold (no index cache) and warm, RSS at both; one-client creates and updates
 * with fsync on and off and the longest event-loop stall meanwhile (bench/eld-probe.mjs); health
 * req/s with wrk (server on CPU 0, wrk on CPU 1); the index work of one update in-process.
 * Run by `npm run bench` (BENCH_INDEX=0 skips it, `only` runs nothing else); sizes from
 * BENCH_INDEX_SIZES (default 1000,10000,50000).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
  const until = async (path: string) => {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
      try {
        const res = await fetch(base + path);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - started;
      } catch {}
      await sleep(path.endsWith('health') ? 2 : 10);
    }
  };
  const healthMs = await until('/api/v1/health');
  const listMs = await until('/api/v1/notes');
  const server: Server = {
    proc,
    base,
    healthMs,
    listMs,
    rss: rssMB(proc.pid!),
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

/** Measures one vault size. */
export async function indexScaleSize(opts: {
  root: string;
  notes: number;
  seed: number;
  writes: number;
  coldRuns?: number;
  warmRuns?: number;
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
    const child = startChild(join(repo, 'bench/index-work-child.ts'), {
      VAULT_DIR: vault,
      SEED: String(opts.seed),
      UPDATES: '200',
    });
    const work = await child.waitFor<{
      type: string;
      update: Timing;
      saveCacheMs: number;
      saveBlockMs: number;
      journalSaveMs: number;
      journalBlockMs: number;
    }>('result', 600_000);
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

/** Runs every size and renders the markdown section. */
export async function indexScaleBench(opts: {
  root: string;
  sizes: number[];
  seed: number;
  writes: number;
  coldRuns?: number;
  warmRuns?: number;
  log: (l: string) => void;
}): Promise<string> {
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
  const lines = [
    `Note index at scale (issue 17): \`node dist/server/main.js\` as \`npm start\` runs it; one client for writes (${opts.writes} creates, then ${opts.writes} updates); wrk -t1 -c32 -d5s for health, server pinned to CPU 0 and wrk to CPU 1 (writes also on the pinned server). Floor: \`node bench/read-hash-floor.mjs\` (read + SHA-256 of every file, 32 in flight), same run. Spawn to health on an empty vault: **${f0(empty)} ms** (target < 300 ms).`,
    '',
    `| figure | ${rows.map((r) => `${r.notes.toLocaleString('en')} notes (${f0(r.vaultMB)} MB)`).join(' | ')} | target (10k / 50k) |`,
    `|---|${rows.map(() => '---|').join('')}---|`,
  ];
  const row = (name: string, cell: (r: IndexScaleResult) => string, tgt: string) =>
    lines.push(`| ${name} | ${rows.map(cell).join(' | ')} | ${tgt} |`);
  row('read-and-hash floor, ms', (r) => f0(r.floorMs), 'measured');
  row('spawn to health 200, ms', (r) => f0(r.healthMs), '-');
  row('spawn to first full list, cold, ms', (r) => f0(r.coldListMs), '< 3,000 / < 15,000');
  row('cold list as a multiple of the floor', (r) => `${f1(r.coldListMs / r.floorMs)}x`, '<= 20x');
  row('spawn to first full list, warm, ms', (r) => f0(r.warmListMs), '< 500 / < 2,000');
  row('RSS after first list, cold, MB', (r) => f0(r.coldRssMB), '< 250 / < 900');
  row('RSS after first list, warm, MB', (r) => f0(r.warmRssMB), '< 150 / -');
  row(
    'create notes/s, fsync on (p50 ms)',
    (r) => `${f0(r.create.on.perSecond)} (${f1(r.create.on.p50)})`,
    '>= 150',
  );
  row(
    'create notes/s, fsync off (p50 ms)',
    (r) => `${f0(r.create.off.perSecond)} (${f1(r.create.off.p50)})`,
    '>= 500',
  );
  row(
    'update notes/s, fsync on (p50 ms)',
    (r) => `${f0(r.update.on.perSecond)} (${f1(r.update.on.p50)})`,
    '-',
  );
  row(
    'update notes/s, fsync off (p50 ms)',
    (r) => `${f0(r.update.off.perSecond)} (${f1(r.update.off.p50)})`,
    '-',
  );
  row(
    'index work per update, ms (median / p99)',
    (r) => `${f2(r.indexWork.median)} / ${f2(r.indexWork.p99)}`,
    '< 2',
  );
  row(
    'longest event-loop stall during writes, ms (fsync on / off)',
    (r) => `${f0(r.stallMs.on)} / ${f0(r.stallMs.off)}`,
    '<= 20',
  );
  row(
    'index cache snapshot: longest event-loop block (whole save), ms',
    (r) => `${f0(r.saveBlockMs)} (${f0(r.saveCacheMs)})`,
    '<= 20 / <= 100',
  );
  row(
    'index cache journal save after 200 updates: longest block (whole save), ms',
    (r) => (r.journalBlockMs === undefined ? '-' : `${f0(r.journalBlockMs)} (${f0(r.journalSaveMs ?? 0)})`),
    '<= 20 / <= 100',
  );
  row(
    'health req/s (wrk, 32 connections)',
    (r) => (r.healthRps === null ? 'no wrk' : f0(r.healthRps)),
    'same at 10 and 50k',
  );
  return `${lines.join('\n')}\n`;
}
