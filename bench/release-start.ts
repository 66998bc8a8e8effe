/**
 * Spawn to health 200 on an empty vault: the release artifact (`node bin/quire.js serve` from the
 * unpacked tarball, and `npm start`'s entry on a fresh artifact) against the old `npm start`
 * (prestart: vite build of the client + esbuild of the server, then node dist/server/main.js),
 * measured in the same run. Run: npx tsx bench/release-start.ts [runs]  (after npm run release)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.argv[2] ?? 7);

/** Milliseconds from spawning `cmd args` to the first 200 of /api/v1/health. */
async function spawnToHealth(cmd: string, args: string[], cwd: string, before?: () => void): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), 'quire-bench-start-'));
  const t0 = performance.now();
  before?.();
  const child = spawn(cmd, args, {
    cwd,
    env: { ...process.env, PORT: '0', RELAY_PORT: '0', DATA_DIR: data, LOG_LEVEL: 'info' },
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
  const ms = performance.now() - t0;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  rmSync(data, { recursive: true, force: true });
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const stage = join(ROOT, 'dist/release/quire-server');
const oldBuild = () => {
  execFileSync('npm', ['run', 'build:client', '--silent'], { cwd: ROOT, stdio: 'ignore' });
  execFileSync('npm', ['run', 'build:server', '--silent'], { cwd: ROOT, stdio: 'ignore' });
};
const artifact: number[] = [];
const startJs: number[] = [];
const old: number[] = [];
const oldNoBuild: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // The old start builds first (so dist/server/main.js exists for the no-build figure).
  if (i < Math.max(1, Math.ceil(RUNS / 3)))
    old.push(await spawnToHealth(process.execPath, ['dist/server/main.js'], ROOT, oldBuild));
  oldNoBuild.push(await spawnToHealth(process.execPath, ['dist/server/main.js'], ROOT));
  artifact.push(await spawnToHealth(process.execPath, ['bin/quire.js', 'serve'], stage));
  startJs.push(await spawnToHealth(process.execPath, ['deploy/shared/release/start.js', 'serve'], ROOT));
}
const row = (name: string, xs: number[]) =>
  `| ${name} | ${xs.length} | ${Math.round(median(xs))} | ${(median(old) / median(xs)).toFixed(1)}x |`;
process.stdout.write(
  [
    `load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, node ${process.version}`,
    '| start | runs | median spawn to health (ms) | faster than old npm start |',
    '| --- | --- | --- | --- |',
    row('old `npm start` (prestart builds client + server, then dist/server/main.js)', old),
    row('old bundle alone (dist/server/main.js, no build)', oldNoBuild),
    row('`npm start` entry on a fresh artifact (deploy/shared/release/start.js serve)', startJs),
    row('the artifact: `node bin/quire.js serve` (unpacked, no node_modules)', artifact),
    '',
  ].join('\n'),
);
