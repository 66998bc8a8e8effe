/**
 * The R2 history store against Miniflare's local R2, beside the fs store as the same-run baseline:
 * N writes (one blob + one journal line each), then a cold start (a new store reads the journal
 * and one blob), twice (the first start folds the journal objects, the second reads the fold).
 * `npx tsx bench/r2-history.ts [writes=500] [runs=3]`; medians in ms.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsHistoryStore } from '../adapters/store/fs-history-store.ts';
import { r2HistoryStore } from '../adapters/store/r2-history-store.ts';
import type { R2BucketLike } from '../adapters/store/r2-note-store.ts';
import type { HistoryStore } from '../core/ports.ts';
import { loadMiniflare } from '../tests/helpers/miniflare.ts';

const N = Number(process.argv[2] ?? 500);
const RUNS = Number(process.argv[3] ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const blob = new Uint8Array(2000).fill(65);

async function run(open: () => HistoryStore) {
  const store = open();
  const t = performance.now();
  for (let i = 0; i < N; i++) {
    const at = await store.appendBlob(blob);
    await store.syncBlobs?.();
    await store.appendJournal(`{"n":${i},"at":${at}}\n`);
  }
  const writes = performance.now() - t;
  const start = async () => {
    const t0 = performance.now();
    const s = open();
    const j = await s.readJournal();
    if (j.split('\n').length !== N + 1) throw new Error('journal lost lines');
    if (!(await s.readBlob((N - 1) * blob.length, blob.length))) throw new Error('blob lost');
    return performance.now() - t0;
  };
  const first = await start();
  const second = await start();
  return { writeMs: writes / N, firstStart: first, secondStart: second };
}

const Miniflare = await loadMiniflare();
const mf = new Miniflare({
  modules: true,
  script: 'export default { fetch() { return new Response(null, { status: 404 }) } }',
  compatibilityDate: '2026-04-01',
  r2Buckets: ['NOTES'],
});
const bucket = (await mf.getR2Bucket('NOTES')) as unknown as R2BucketLike;
const results: Record<string, { writeMs: number[]; firstStart: number[]; secondStart: number[] }> = {};
const add = (name: string, r: { writeMs: number; firstStart: number; secondStart: number }) => {
  results[name] ??= { writeMs: [], firstStart: [], secondStart: [] };
  for (const k of ['writeMs', 'firstStart', 'secondStart'] as const) results[name]![k].push(r[k]);
};
try {
  for (let r = 0; r < RUNS; r++) {
    const dir = await mkdtemp(join(tmpdir(), 'quire-bench-hist-'));
    const opened: { close(): Promise<void> }[] = [];
    const openFs = () => {
      const s = fsHistoryStore({ dir: join(dir, 'h') });
      opened.push(s);
      return s;
    };
    add('fs (fsync)', await run(openFs));
    for (const s of opened) await s.close();
    await rm(dir, { recursive: true, force: true });
    const prefix = `bench-${process.pid}-${r}/`;
    add('r2 (Miniflare)', await run(() => r2HistoryStore({ bucket, prefix })));
  }
} finally {
  await mf.dispose();
}
const base = results['fs (fsync)']!;
for (const [name, r] of Object.entries(results)) {
  const m = (k: keyof typeof r) => median(r[k]);
  console.log(
    `${name}: write ${m('writeMs').toFixed(2)} ms (x${(m('writeMs') / median(base.writeMs)).toFixed(1)}),` +
      ` first start ${m('firstStart').toFixed(0)} ms (x${(m('firstStart') / median(base.firstStart)).toFixed(1)}),` +
      ` second start ${m('secondStart').toFixed(0)} ms (x${(m('secondStart') / median(base.secondStart)).toFixed(1)})`,
  );
}
