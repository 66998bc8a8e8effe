/**
 * The Worker's cold start: how long the first request takes when the Durable Object builds its
 * index from R2, with the index cache in KV and without it. Notes are created through the API,
 * then workerd (Miniflare, persisted to a temp folder) is restarted and the first request timed.
 * `npx tsx bench/worker-cold-start.ts [notes...]` (default 200 1000); prints a markdown table.
 */
import { rm } from 'node:fs/promises';
import type { KvNamespaceLike } from '../adapters/store/kv-state-store.ts';
import { tempDir } from '../tests/helpers/app.ts';
import { startWorkerd } from '../tests/runtime/runtimes.ts';
import { median } from './load.ts';

const kvOf = async (rt: Awaited<ReturnType<typeof startWorkerd>>) =>
  (await rt.mf.getKVNamespace('STATE')) as unknown as KvNamespaceLike;
const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const RUNS = 3;

async function firstRequestMs(persistDir: string, dropCache: boolean): Promise<number> {
  const rt = await startWorkerd({ persistDir });
  try {
    if (dropCache) await (await kvOf(rt)).delete('quire:index-cache.json');
    const t0 = performance.now();
    const res = await fetch(`${rt.url}/api/v1/health`);
    const ms = performance.now() - t0;
    if (((await res.json()) as any).data.status !== 'ok') throw new Error('not ready');
    return ms;
  } finally {
    await rt.stop();
  }
}

const rows: string[] = [];
for (const n of sizes.length ? sizes : [200, 1000]) {
  const tmp = await tempDir('quire-cold-');
  const rt = await startWorkerd({ persistDir: tmp.dir, vars: { INDEX_CACHE_SAVE_SECONDS: '0' } });
  const key = ((await (await fetch(`${rt.url}/api/v1/system/setup`)).json()) as any).data.apiKey;
  const headers = { 'x-service-key': key, 'content-type': 'application/json' };
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, (_, j) =>
        fetch(`${rt.url}/api/v1/notes`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            path: `f${(i + j) % 20}/n${i + j}.md`,
            content: `# Note ${i + j}\n\n${'Words about soil, compost and seeds. '.repeat(40)}[[n${(i + j + 1) % n}]] #t${(i + j) % 7}\n`,
          }),
        }).then((r) => r.text()),
      ),
    );
  }
  // Let the alarm save the index cache after the last write.
  const kv = await kvOf(rt);
  const deadline = Date.now() + 30_000;
  while (
    !(await kv.get('quire:index-cache.json', 'text'))?.includes(`n${n - 1}.md`) &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const cacheBytes = (await kv.get('quire:index-cache.json', 'text'))?.length ?? 0;
  await rt.stop();
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) warm.push(await firstRequestMs(tmp.dir, false));
  const cold: number[] = [];
  for (let i = 0; i < RUNS; i++) cold.push(await firstRequestMs(tmp.dir, true));
  rows.push(
    `| ${n.toLocaleString('en-US')} | ${Math.round(median(warm))} ms | ${Math.round(median(cold))} ms | ${(cacheBytes / 2 ** 20).toFixed(1)} MB |`,
  );
  await rm(tmp.dir, { recursive: true, force: true });
}
process.stdout.write(
  `\n| notes | first request, index cache in KV | first request, no cache (every note read from R2) | index cache size |\n|---|---|---|---|\n${rows.join('\n')}\n`,
);
process.exit(0);
