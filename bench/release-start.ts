/**
 * Spawn to health 200 on an empty vault: the release artifact (`node bin/quire.js serve` from the
 * unpacked tarball, and `npm start`'s entry on a fresh artifact) against a bare `node:http` server
 * answering the same path (the floor: Node's own start on this machine), measured in the same run,
 * interleaved, so a loaded machine shows in the ratios. Besides wall time it reports the CPU the
 * child used until it answered (Linux: /proc/<pid>/task/<tid>/schedstat, all threads), which a
 * busy machine disturbs far less than wall time.
 *
 * Run: npm run release && npx tsx bench/release-start.ts [runs]
 *   BENCH_OLD=1            adds the old `npm start` (client + server build on every start)
 *   BENCH_COMPARE=<dir>    adds another unpacked artifact (e.g. the previous commit's) as "before"
 *   BENCH_NODE=<node bin>  adds the artifact under another Node (e.g. 22, with and without its
 *                          compile cache: NODE_DISABLE_COMPILE_CACHE=1)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.argv[2] ?? 7);

/** CPU milliseconds `pid` used so far, all threads (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      return sum + ns / 1e6;
    }, 0);
  } catch {
    return Number.NaN;
  }
}

interface Case {
  name: string;
  node: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  before?: () => void;
  /** Runs in every round unless set (the old start is slow: a third of the rounds). */
  every?: number;
  wall: number[];
  cpu: number[];
}

/** Milliseconds (wall, CPU) from spawning the case to the first 200 of /api/v1/health. */
async function spawnToHealth(c: Case): Promise<[number, number]> {
  const data = mkdtempSync(join(tmpdir(), 'quire-bench-start-'));
  const t0 = performance.now();
  c.before?.();
  const child = spawn(c.node, c.args, {
    cwd: c.cwd,
    env: { ...process.env, PORT: '0', RELAY_PORT: '0', DATA_DIR: data, LOG_LEVEL: 'info', ...c.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = /"msg":"listening","url":"([^"]+)"/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  for (;;) {
    const ok = await fetch(`${url}/api/v1/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const wall = performance.now() - t0;
  const cpu = cpuMs(child.pid!);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  rmSync(data, { recursive: true, force: true });
  return [wall, cpu];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

// The floor: Node starting a node:http server that answers health, nothing else.
const bareDir = mkdtempSync(join(tmpdir(), 'quire-bench-bare-'));
writeFileSync(
  join(bareDir, 'bare.mjs'),
  `import { createServer } from 'node:http';
const s = createServer((q, r) => { r.writeHead(200, { 'content-type': 'application/json' }); r.end('{"success":true}'); });
s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'listening', url: 'http://127.0.0.1:' + s.address().port })));
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`,
);
const stage = join(ROOT, 'dist/release/quire-server');
const mk = (c: Omit<Case, 'wall' | 'cpu'>): Case => ({ ...c, wall: [], cpu: [] });
const node = process.execPath;
const cases: Case[] = [
  mk({ name: 'bare `node:http` server (baseline)', node, args: ['bare.mjs'], cwd: bareDir }),
];
if (process.env.BENCH_COMPARE) {
  cases.push(
    mk({
      name: 'before: `node bin/quire.js serve`',
      node,
      args: ['bin/quire.js', 'serve'],
      cwd: process.env.BENCH_COMPARE,
    }),
  );
}
cases.push(
  mk({ name: 'the artifact: `node bin/quire.js serve`', node, args: ['bin/quire.js', 'serve'], cwd: stage }),
  mk({
    name: '`npm start` entry (deploy/shared/release/start.js serve)',
    node,
    args: ['deploy/shared/release/start.js', 'serve'],
    cwd: ROOT,
  }),
);
const other = process.env.BENCH_NODE;
if (other) {
  const v = execFileSync(other, ['--version'], { encoding: 'utf8' }).trim();
  cases.push(
    mk({ name: `bare \`node:http\` server, Node ${v}`, node: other, args: ['bare.mjs'], cwd: bareDir }),
    mk({
      name: `the artifact on Node ${v}, compile cache off`,
      node: other,
      args: ['bin/quire.js', 'serve'],
      cwd: stage,
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    }),
    mk({
      name: `the artifact on Node ${v}, compile cache on`,
      node: other,
      args: ['bin/quire.js', 'serve'],
      cwd: stage,
    }),
  );
}
if (process.env.BENCH_OLD === '1') {
  cases.push(
    mk({
      name: 'old `npm start` (builds client + server, then dist/server/main.js)',
      node,
      args: ['dist/server/main.js'],
      cwd: ROOT,
      every: 3,
      before: () => {
        execFileSync('npm', ['run', 'build:client', '--silent'], { cwd: ROOT, stdio: 'ignore' });
        execFileSync('npm', ['run', 'build:server', '--silent'], { cwd: ROOT, stdio: 'ignore' });
      },
    }),
  );
}
const load0 = loadavg()[0]!;
for (let i = 0; i < RUNS; i++) {
  for (const c of cases) {
    if (c.every && i % c.every !== 0) continue;
    const [wall, cpu] = await spawnToHealth(c);
    c.wall.push(wall);
    c.cpu.push(cpu);
  }
}
rmSync(bareDir, { recursive: true, force: true });
const base = cases[0]!;
const fmt = (x: number) => (Number.isNaN(x) ? '-' : String(Math.round(x)));
const ratio = (x: number, b: number) => (Number.isNaN(x) ? '-' : `${(x / b).toFixed(2)}x`);
process.stdout.write(
  [
    `load average ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}, node ${process.version}, ${RUNS} rounds`,
    '| start | runs | median wall ms | vs bare | median CPU ms | vs bare |',
    '| --- | --- | --- | --- | --- | --- |',
    ...cases.map(
      (c) =>
        `| ${c.name} | ${c.wall.length} | ${fmt(median(c.wall))} | ${ratio(median(c.wall), median(base.wall))} | ${fmt(median(c.cpu))} | ${ratio(median(c.cpu), median(base.cpu))} |`,
    ),
    '',
  ].join('\n'),
);
