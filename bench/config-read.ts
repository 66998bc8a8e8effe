/**
 * What reading the configuration costs at start: in a fresh Node process, importing
 * deploy/shared/config and the first loadConfig + loadRelayConfig (cold: the schemas are built),
 * then the mean of 2,000 more calls (warm). With BENCH_COMPARE=<folder holding another copy of
 * deploy/shared/config/> (e.g. main's, put at deploy/shared/config-main/ so its imports resolve)
 * both run interleaved in the same run and the ratio is printed.
 *
 * Run: npx tsx bench/config-read.ts [rounds]
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.argv[2] ?? 15);

if (process.env.CONFIG_READ_CHILD) {
  const t0 = performance.now();
  const server = await import(pathToFileURL(join(process.env.CONFIG_READ_CHILD, 'server.ts')).href);
  const relay = await import(pathToFileURL(join(process.env.CONFIG_READ_CHILD, 'relay.ts')).href);
  const t1 = performance.now();
  server.loadConfig({}, '/srv');
  relay.loadRelayConfig({});
  const t2 = performance.now();
  const env = { PORT: '8080', HOST: '127.0.0.1', SERVICE_AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(40) };
  for (let i = 0; i < 2000; i++) {
    server.loadConfig(env, '/srv');
    relay.loadRelayConfig({ RELAY_PORT: '9000' });
  }
  const t3 = performance.now();
  process.stdout.write(
    JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, warmUs: ((t3 - t2) / 2000) * 1000 }),
  );
  process.exit(0);
}

const dirs: [string, string][] = [['this branch', join(ROOT, 'deploy/shared/config')]];
if (process.env.BENCH_COMPARE) dirs.unshift(['before', process.env.BENCH_COMPARE]);
const runs = new Map<string, { importMs: number; firstMs: number; warmUs: number }[]>();
for (let i = 0; i < ROUNDS; i++)
  for (const [name, dir] of dirs) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename], {
      cwd: ROOT,
      env: { ...process.env, CONFIG_READ_CHILD: dir },
      encoding: 'utf8',
    });
    runs.set(name, [...(runs.get(name) ?? []), JSON.parse(out)]);
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows = [...runs].map(([name, rs]) => ({
  name,
  importMs: median(rs.map((r) => r.importMs)),
  firstMs: median(rs.map((r) => r.firstMs)),
  warmUs: median(rs.map((r) => r.warmUs)),
}));
const base = rows[0]!;
process.stdout.write(
  [
    `node ${process.version}, ${ROUNDS} rounds, medians (tsx: import times include transpiling)`,
    '| config | import ms | first read (server + relay) ms | warm read (server + relay) µs |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.importMs.toFixed(1)} (${(r.importMs / base.importMs).toFixed(2)}x) | ${r.firstMs.toFixed(2)} (${(r.firstMs / base.firstMs).toFixed(2)}x) | ${r.warmUs.toFixed(1)} (${(r.warmUs / base.warmUs).toFixed(2)}x) |`,
    ),
    '',
  ].join('\n'),
);
