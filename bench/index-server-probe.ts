/**
 * Issue 17: the bundled server (`dist/server/main.js`, built by `npm run build:server`) on a vault,
 * cold (empty DATA_DIR) then twice warm: spawn to the first full `GET /api/v1/notes`, the server's CPU
 * time and RSS then, and RSS a moment later (after the cache save and the watcher's start).
 * Usage: npx tsx bench/index-server-probe.ts <vaultDir> <dataDir> [repoRoot]
 * `repoRoot` (default this repository) lets one run compare two checkouts (each built first).
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const [vaultArg, dataArg, rootArg] = process.argv.slice(2);
const root = resolve(rootArg ?? new URL('..', import.meta.url).pathname);
const vault = resolve(vaultArg!);
const data = resolve(dataArg!);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
/** CPU time the process used so far (user + system, all threads), ms; CLK_TCK is 100 on Linux. */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const rssMB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function run(phase: string) {
  const port = await freePort();
  const started = performance.now();
  // PROBE_CPU_PROF=<dir> writes a CPU profile of each server run there.
  const prof = process.env.PROBE_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROBE_CPU_PROF}`]
    : [];
  // PROBE_NODE_FLAGS adds V8/Node flags (space-separated), e.g. to try heap settings.
  const flags = (process.env.PROBE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...flags, ...prof, join(root, 'dist/server/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: data,
      VAULT_DIR: vault,
      PAIRING_MODE: 'open-port',
      SERVICE_AUTH_MODE: 'none',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/notes`).catch(() => null);
      const body = res ? await res.arrayBuffer() : null;
      if (res?.status === 200 && body) break;
      await sleep(10);
    }
    const listMs = Math.round(performance.now() - started);
    const rss = rssMB(proc.pid!);
    const cpu = cpuMs(proc.pid!);
    // The cache save after a cold index runs beside requests; wait for it before the warm run.
    await sleep(phase === 'cold' ? 3000 : 200);
    console.log(
      JSON.stringify({
        phase,
        listMs,
        listCpuMs: cpu,
        rssMB: Math.round(rss),
        rssLaterMB: Math.round(rssMB(proc.pid!)),
      }),
    );
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
}
rmSync(data, { recursive: true, force: true });
await run('cold');
await run('warm');
await run('warm');
