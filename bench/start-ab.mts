/**
 * Issue 33: spawn of the bundled server (`dist/server/main.js`, built in each tree first) to its
 * first full gzip `GET /api/v1/notes`, cold or warm, for two or more trees alternately in the same
 * run, with the RSS right after that list. Warm runs use a data folder made by one cold start of
 * the same tree, and one unmeasured warm start first. An empty vault's spawn to health is measured
 * too, as the machine's speed of the day.
 *
 * Usage: npx tsx bench/start-ab.mts <warm|cold> <notes> <rounds> name=treeDir [name=treeDir ...]
 * BENCH_NODE_ARGS adds Node flags to every start (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Vaults come from `/work/bench-vaults` (or BENCH_VAULTS), made by bench/generate-vault.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureVault } from './generate-vault.ts';

const [phase, notesArg, roundsArg, ...treeArgs] = process.argv.slice(2);
if ((phase !== 'warm' && phase !== 'cold') || !notesArg || !roundsArg || treeArgs.length === 0) {
  process.stderr.write('usage: tsx bench/start-ab.mts <warm|cold> <notes> <rounds> name=dir ...\n');
  process.exit(2);
}
const trees = treeArgs.map((a) => {
  const [name, dir] = a.split('=');
  return { name: name!, dir: resolve(dir!) };
});
const notes = Number(notesArg);
const rounds = Number(roundsArg);
const { dir: vault } = await ensureVault(process.env.BENCH_VAULTS ?? '/work/bench-vaults', notes, 42);
const work = join(tmpdir(), 'quire-start-ab');

const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => ok(p));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMB = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
};

async function start(tree: string, vaultDir: string, data: string) {
  const port = await freePort();
  const t0 = performance.now();
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const proc = spawn(process.execPath, [...nodeArgs, join(tree, 'dist/server/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: data,
      VAULT_DIR: vaultDir,
      PAIRING_MODE: 'open-port',
      SERVICE_AUTH_MODE: 'none',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-2000);
  });
  const until = async (path: string) => {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, {
          headers: { 'accept-encoding': 'gzip' },
        });
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - t0;
      } catch {}
      await sleep(path.endsWith('health') ? 2 : 5);
    }
  };
  const health = await until('/api/v1/health');
  const list = await until('/api/v1/notes');
  const rss = rssMB(proc.pid!);
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
  return { health, list, rss };
}

const empty = join(work, 'empty-vault');
rmSync(work, { recursive: true, force: true });
mkdirSync(empty, { recursive: true });
const rows: Record<string, { health: number[]; list: number[]; rss: number[]; emptyHealth: number[] }> = {};
for (const t of trees) {
  rows[t.name] = { health: [], list: [], rss: [], emptyHealth: [] };
  if (phase === 'warm') {
    const data = join(work, `data-${t.name}`);
    await start(t.dir, vault, data); // cold: makes the index cache
    await sleep(3000); // let it save
    await start(t.dir, vault, data); // one unmeasured warm start
  }
}
for (let r = 0; r < rounds; r++) {
  for (const t of trees) {
    const emptyData = join(work, `empty-data-${t.name}-${r}`);
    rows[t.name]!.emptyHealth.push((await start(t.dir, empty, emptyData)).health);
    const data = join(work, phase === 'warm' ? `data-${t.name}` : `cold-${t.name}-${r}`);
    const s = await start(t.dir, vault, data);
    if (phase === 'cold') rmSync(data, { recursive: true, force: true });
    rows[t.name]!.health.push(s.health);
    rows[t.name]!.list.push(s.list);
    rows[t.name]!.rss.push(s.rss);
    process.stderr.write(
      `round ${r + 1} ${t.name}: health ${s.health.toFixed(0)} list ${s.list.toFixed(0)} ms, RSS ${s.rss} MB\n`,
    );
  }
}
const med = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const first = trees[0]!.name;
console.log(
  `\n${phase}, ${notes} notes, ${rounds} rounds, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
console.log(
  '| tree | empty vault, spawn to health | spawn to health | spawn to first list | of ' +
    first +
    ' | RSS MB |',
);
console.log('|---|---|---|---|---|---|');
for (const t of trees) {
  const r = rows[t.name]!;
  const f = (a: number[]) => `${med(a).toFixed(0)} (${a.map((x) => x.toFixed(0)).join(', ')})`;
  console.log(
    `| ${t.name} | ${f(r.emptyHealth)} | ${f(r.health)} | ${f(r.list)} | ${(med(r.list) / med(rows[first]!.list)).toFixed(2)}x | ${f(r.rss)} |`,
  );
}
rmSync(work, { recursive: true, force: true });
