import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type BenchChild, type ChildMessage, startChild } from './children.ts';
import { ensureVault } from './generate-vault.ts';
import { type LoadResult, type LoadSettings, median, runLoad } from './load.ts';
import type { InprocResult, SizeResult } from './results.ts';
import { BROWSER_ORIGIN, measureRoutes } from './routes.ts';
import { httpUpdates, listAfterWrite, planUpdates, whileWriting } from './update.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const SERVER = here('./server-child.ts');
const INPROC = here('./inproc-child.ts');

/** Settings of one vault size. */
export interface SizeOptions {
  root: string;
  runDir: string;
  notes: number;
  seed: number;
  load: LoadSettings;
  coldRuns: number;
  warmRuns: number;
  updates: number;
  settleMs: number;
  /** Measures the ceiling server; called right before the routes, for ratios from one moment. */
  ceiling: () => Promise<LoadResult[]>;
  log: (line: string) => void;
}

type Ready = ChildMessage & {
  url: string;
  readyMs: number;
  readyCpuMs: number;
  rss: number;
  maxRss: number;
  heapUsed: number;
  cacheBytes: number;
};
type Mem = ChildMessage & { rss: number; maxRss: number; cpuUs: number };

const SERVER_TIMEOUT = 20 * 60_000;

/** Generates (or reuses) the vault of `o.notes` notes and measures it. */
export async function measureSize(o: SizeOptions): Promise<SizeResult> {
  const vault = await ensureVault(o.root, o.notes, o.seed);
  if (vault.generatedMs !== null)
    o.log(`generated ${o.notes} notes in ${(vault.generatedMs / 1000).toFixed(1)} s`);
  const work = join(o.runDir, `vault-${o.notes}`);
  await cp(vault.dir, work, { recursive: true });
  let server: BenchChild | undefined;
  const start = async (dataDir: string) => {
    const t = performance.now();
    server = startChild(SERVER, {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      VAULT_DIR: work,
      LOG_LEVEL: 'warn',
      // The note routes are measured without the cost of authentication (loopback only).
      SERVICE_AUTH_MODE: 'none',
      RATE_LIMIT: '0',
      CORS_ORIGINS: BROWSER_ORIGIN,
    });
    const ready = await server.waitFor<Ready>('ready', SERVER_TIMEOUT);
    return { ...ready, wallMs: performance.now() - t };
  };
  const stop = async () => {
    const reply = (await server?.stop()) as (ChildMessage & { stopMs?: number }) | null | undefined;
    server = undefined;
    return reply?.stopMs ?? Number.NaN;
  };
  try {
    const colds: Ready[] = [];
    const coldWall: number[] = [];
    let dataDir = '';
    for (let k = 0; k < o.coldRuns; k++) {
      dataDir = join(o.runDir, `data-${o.notes}-${k}`);
      const r = await start(dataDir);
      o.log(`cold index ${k + 1}/${o.coldRuns}: ${(r.readyMs / 1000).toFixed(2)} s`);
      colds.push(r);
      coldWall.push(r.wallMs);
      await stop();
    }
    const warms: Ready[] = [];
    const warmWall: number[] = [];
    for (let k = 0; k < o.warmRuns; k++) {
      if (server) await stop();
      const r = await start(dataDir);
      o.log(`warm restart ${k + 1}/${o.warmRuns}: ${(r.readyMs / 1000).toFixed(2)} s`);
      warms.push(r);
      warmWall.push(r.wallMs);
    }
    const base = warms.at(-1)!.url;
    await sleep(o.settleMs);
    const idle = await server!.ask<Mem>({ type: 'mem' }, 'mem');

    const cpuUs = async () => (await server!.ask<Mem>({ type: 'mem' }, 'mem')).cpuUs;
    const ceiling = await o.ceiling();
    const routes = await measureRoutes({
      base,
      notePaths: vault.manifest.paths,
      seed: o.seed,
      load: o.load,
      serverCpuUs: cpuUs,
      log: o.log,
    });

    const updates = planUpdates(o.notes, o.seed, o.updates + 70);
    const put = await httpUpdates(base, updates.slice(0, o.updates + 50), 50);
    o.log(`PUT: median ${put.median.toFixed(2)} ms, p99 ${put.p99.toFixed(2)} ms`);
    const law = await listAfterWrite(base, updates.slice(o.updates + 50));
    o.log(`GET /notes right after a write: median ${law.median.toFixed(1)} ms`);
    const hot = routes.hotPaths;
    const mixed = await whileWriting(base, updates, 100, () =>
      runLoad('GET note (100 hot notes) while 10 PUT/s', { url: base, paths: hot }, o.load, cpuUs),
    );
    const r = mixed.result;
    o.log(`${r.label}: ${Math.round(r.rps)} req/s, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(0)} ms`);
    routes.loads.push(r);
    const end = await server!.ask<Mem>({ type: 'mem' }, 'mem');
    const stopMs = await stop();

    const probeChild = startChild(
      INPROC,
      {
        VAULT_DIR: vault.dir,
        SEED: String(o.seed),
        UPDATES: String(o.updates),
      },
      ['--expose-gc'],
    );
    const inproc = await probeChild.waitFor<InprocResult>('result', SERVER_TIMEOUT);
    await probeChild.stop();
    o.log(`in-process update(): median ${inproc.update.median.toFixed(2)} ms`);

    return {
      notes: o.notes,
      vaultBytes: vault.manifest.bytes,
      folders: vault.manifest.folders,
      cold: {
        readyMs: median(colds.map((c) => c.readyMs)),
        cpuMs: median(colds.map((c) => c.readyCpuMs)),
        wallMs: median(coldWall),
        runs: colds.map((c) => c.readyMs),
        rss: colds.at(-1)!.rss,
        maxRss: colds.at(-1)!.maxRss,
        cacheBytes: colds.at(-1)!.cacheBytes,
      },
      warm: {
        readyMs: median(warms.map((c) => c.readyMs)),
        cpuMs: median(warms.map((c) => c.readyCpuMs)),
        wallMs: median(warmWall),
        runs: warms.map((c) => c.readyMs),
        rss: warms.at(-1)!.rss,
      },
      idleRss: idle.rss,
      ceiling,
      ...routes,
      put,
      listAfterWrite: law,
      stopMs,
      endRss: end.rss,
      endMaxRss: end.maxRss,
      inproc,
    };
  } finally {
    await stop();
  }
}
