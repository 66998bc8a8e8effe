/**
 * Spawn of the bundled server (`dist/server/main.js`, built in each tree first) to its
 * first full gzip `GET /api/v1/notes` (its last byte received, not inflated), cold or warm, for two or more trees alternately in the same
 * run, with the RSS right after that list. Warm runs use a data folder made by one cold start of
 * the same tree, and one unmeasured warm start first. An empty vault's spawn to health is measured
 * too, as the machine's speed of the day.
 *
 * Usage: npx tsx bench/start-ab.mts <warm|cold> <notes> <rounds> name=treeDir[@--flag,--flag] ...
 * (a name may point at an entry instead: `rel=DIR/dist/release/quire-server/bin/quire.js`, the
 * release `npm start` runs, started with `serve`, as is `DIR/deploy/shared/release/start.js`; or at `npm:DIR`: `npm start --silent` in DIR, in
 * a process group of its own, stopped by SIGTERM to that group as a supervisor or a terminal
 * does: its warm runs start from a data folder left by such a stop)
 * BENCH_NODE_ARGS adds Node flags to every start (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * BENCH_ELD=1 preloads bench/eld-probe.mjs into every start and adds the event loop's longest
 * delay and p99 (`monitorEventLoopDelay`) from the first health 200 to the first full list, and
 * the longest turn that began in that window (the probe's 1 ms ticks, `maxGapMs`): the histogram's
 * first sample also counts the turn that was running when the health answer went out; and the
 * longest turn from the first list to the index ready (polled every 5 ms).
 * Vaults come from `/work/bench-vaults` (or BENCH_VAULTS), made by bench/generate-vault.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureVault } from './generate-vault.ts';

const [phase, notesArg, roundsArg, ...treeArgs] = process.argv.slice(2);
const ELD = process.env.BENCH_ELD === '1';
const ELD_PROBE = new URL('./eld-probe.mjs', import.meta.url).pathname;
if ((phase !== 'warm' && phase !== 'cold') || !notesArg || !roundsArg || treeArgs.length === 0) {
  process.stderr.write('usage: tsx bench/start-ab.mts <warm|cold> <notes> <rounds> name=dir ...\n');
  process.exit(2);
}
// `name=dir` or `name=dir@--flag,--flag`: Node flags for that tree's starts only.
const trees = treeArgs.map((a) => {
  const at = a.indexOf('=');
  const [dir, flags] = a.slice(at + 1).split('@');
  const name = a.slice(0, at);
  const npm = dir!.startsWith('npm:');
  return {
    name,
    dir: npm ? `npm:${resolve(dir!.slice(4))}` : resolve(dir!),
    flags: flags ? flags.split(',') : [],
  };
});
const notes = Number(notesArg);
const rounds = Number(roundsArg);
const { dir: vault } = await ensureVault(process.env.BENCH_VAULTS ?? '/work/bench-vaults', notes, 42);
// A folder of this run's own: other runs of this script may be going on beside it.
const work = mkdtempSync(join(tmpdir(), 'quire-start-ab-'));

const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => ok(p));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** User + system CPU of the whole process (every thread) so far, in ms. */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};
const rssMB = (pid: number) => {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
};

/**
 * One GET with `Accept-Encoding: gzip`, its body taken as sent (not inflated: the figure is the
 * server's, not the client's inflate): status, when the headers came and when the body ended.
 */
function get(port: number, path: string): Promise<{ status: number; headersAt: number }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const headersAt = performance.now();
      res.on('data', () => {});
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headersAt }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function start(tree: string, vaultDir: string, data: string, flags: string[] = []) {
  const port = await freePort();
  const t0 = performance.now();
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  if (ELD) nodeArgs.push('--import', ELD_PROBE);
  // A tree's bundled server, or an entry named directly: the release's CLI (`quire.js`) runs `serve`.
  const entry = tree.endsWith('.js')
    ? [tree, ...(/(quire|start)\.js$/.test(tree) ? ['serve'] : [])]
    : [join(tree, 'dist/server/main.js')];
  const npm = tree.startsWith('npm:');
  const [command, args] = npm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, [...nodeArgs, ...flags, ...entry]];
  // This script's own npm and tsx variables are not the server's (npm sets its own).
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_|^NODE_OPTIONS$|^TSX_/i.test(k)),
  );
  const proc = spawn(command, args, {
    cwd: npm ? tree.slice(4) : undefined,
    detached: npm,
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: data,
      VAULT_DIR: vaultDir,
      PAIRING_MODE: 'open-port',
      SERVICE_AUTH_MODE: 'none',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
      ...(ELD ? { ELD_GAPS: '1' } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe', ...(ELD ? (['ipc'] as const) : [])],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-2000);
  });
  const until = async (path: string) => {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
      try {
        const res = await get(port, path);
        const headersAt = res.headersAt - t0;
        if (res.status === 200) {
          if (process.env.BENCH_VERBOSE)
            process.stderr.write(
              `${path}: headers ${headersAt.toFixed(0)} body ${(performance.now() - t0).toFixed(0)} ms\n`,
            );
          return performance.now() - t0;
        }
      } catch {}
      // As bench/index-scale.ts polls (each 503 costs the server a little CPU).
      await sleep(path.endsWith('health') ? 2 : 10);
    }
  };
  const health = await until('/api/v1/health');
  if (ELD) await ask(proc, { type: 'eld-reset' });
  const list = await until('/api/v1/notes');
  type Eld = { maxMs: number; p99Ms: number; maxGapMs: number };
  const eld = ELD ? ((await ask(proc, { type: 'eld' })) as Eld) : null;
  if (ELD) await ask(proc, { type: 'eld-reset' });
  // Under npm, the server is npm's child (its script execs node).
  const pid = npm
    ? Number(readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(' ')[0])
    : proc.pid!;
  const rss = rssMB(pid);
  const cpu = cpuMs(pid);
  // Then the index ready (the first list may come before it: core/notes/stop-mark.ts).
  let ready = list;
  for (;;) {
    const h = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.json());
    if ((h as { data?: { index?: { state?: string } } }).data?.index?.state === 'ready') break;
    await sleep(5);
    ready = performance.now() - t0;
  }
  const readyRss = rssMB(pid);
  const eldReady = ELD ? ((await ask(proc, { type: 'eld' })) as Eld) : null;
  const exited = new Promise((r) => proc.once('exit', r));
  if (npm) process.kill(-proc.pid!, 'SIGTERM');
  else proc.kill('SIGTERM');
  await exited;
  return { health, list, rss, ready, readyRss, cpu, eld, eldReady };
}

/** Sends `msg` to the eld-probe in `proc` and resolves with its answer of the same type. */
function ask(proc: ReturnType<typeof spawn>, msg: { type: string }): Promise<unknown> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }) => {
      if (m?.type !== msg.type) return;
      proc.off('message', on);
      resolve(m);
    };
    proc.on('message', on);
    proc.send(msg);
  });
}

const empty = join(work, 'empty-vault');
mkdirSync(empty, { recursive: true });
const rows: Record<
  string,
  {
    health: number[];
    list: number[];
    rss: number[];
    emptyHealth: number[];
    ready: number[];
    readyRss: number[];
    cpu: number[];
    eldMax: number[];
    eldP99: number[];
    eldGap: number[];
    eldReadyGap: number[];
  }
> = {};
for (const t of trees) {
  rows[t.name] = {
    health: [],
    list: [],
    rss: [],
    emptyHealth: [],
    ready: [],
    readyRss: [],
    cpu: [],
    eldMax: [],
    eldP99: [],
    eldGap: [],
    eldReadyGap: [],
  };
  if (phase === 'warm') {
    const data = join(work, `data-${t.name}`);
    await start(t.dir, vault, data, t.flags); // cold: makes the index cache
    await sleep(3000); // let it save
    await start(t.dir, vault, data, t.flags); // one unmeasured warm start
  }
}
for (let r = 0; r < rounds; r++) {
  for (const t of trees) {
    const emptyData = join(work, `empty-data-${t.name}-${r}`);
    rows[t.name]!.emptyHealth.push((await start(t.dir, empty, emptyData, t.flags)).health);
    const data = join(work, phase === 'warm' ? `data-${t.name}` : `cold-${t.name}-${r}`);
    const s = await start(t.dir, vault, data, t.flags);
    if (phase === 'cold') rmSync(data, { recursive: true, force: true });
    rows[t.name]!.health.push(s.health);
    rows[t.name]!.list.push(s.list);
    rows[t.name]!.rss.push(s.rss);
    rows[t.name]!.ready.push(s.ready);
    rows[t.name]!.readyRss.push(s.readyRss);
    rows[t.name]!.cpu.push(s.cpu);
    if (s.eld) {
      rows[t.name]!.eldMax.push(s.eld.maxMs);
      rows[t.name]!.eldP99.push(s.eld.p99Ms);
      rows[t.name]!.eldGap.push(s.eld.maxGapMs);
      rows[t.name]!.eldReadyGap.push(s.eldReady!.maxGapMs);
    }
    process.stderr.write(
      `round ${r + 1} ${t.name}: health ${s.health.toFixed(0)} list ${s.list.toFixed(0)} ms, RSS ${s.rss} MB${s.eld ? `, event loop max ${s.eld.maxMs.toFixed(1)} p99 ${s.eld.p99Ms.toFixed(1)} ms, longest turn begun after health ${s.eld.maxGapMs.toFixed(1)} ms, from the list to ready ${s.eldReady!.maxGapMs.toFixed(1)} ms` : ''}\n`,
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
  `| tree | empty vault, spawn to health | spawn to health | spawn to first list | of ${first} | RSS after it, MB | spawn to index ready | RSS then, MB | CPU to the first list, ms |`,
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const t of trees) {
  const r = rows[t.name]!;
  const f = (a: number[]) => `${med(a).toFixed(0)} (${a.map((x) => x.toFixed(0)).join(', ')})`;
  console.log(
    `| ${t.name} | ${f(r.emptyHealth)} | ${f(r.health)} | ${f(r.list)} | ${(med(r.list) / med(rows[first]!.list)).toFixed(2)}x | ${f(r.rss)} | ${f(r.ready)} | ${f(r.readyRss)} | ${f(r.cpu)} |`,
  );
}
if (ELD) {
  console.log(
    '\n| tree | event loop, health to first list: longest delay, ms | p99, ms | longest turn begun after the health answer, ms | longest turn from the first list to index ready, ms |',
  );
  console.log('|---|---|---|---|---|');
  for (const t of trees) {
    const r = rows[t.name]!;
    const f = (a: number[]) => `${med(a).toFixed(1)} (${a.map((x) => x.toFixed(1)).join(', ')})`;
    console.log(`| ${t.name} | ${f(r.eldMax)} | ${f(r.eldP99)} | ${f(r.eldGap)} | ${f(r.eldReadyGap)} |`);
  }
}
rmSync(work, { recursive: true, force: true });
