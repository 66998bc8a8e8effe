import { build } from 'esbuild';

/** Where the bundle's entry lives. */
export const WORKER_ENTRY = new URL('./worker.ts', import.meta.url).pathname;

/**
 * Bundles the Worker into one ES module at `outfile` (what `wrangler deploy` would upload).
 * `node:*` imports stay external: workerd provides them under the `nodejs_compat` flag.
 */
export async function buildWorker(outfile: string): Promise<{ bytes: number }> {
  const result = await build({
    entryPoints: [WORKER_ENTRY],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['node:*', 'cloudflare:*'],
    metafile: true,
    logLevel: 'warning',
  });
  return { bytes: Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0) };
}

/** `node --import tsx deploy/workerd/build.ts [outfile]`: the bundle for `wrangler deploy --no-bundle`. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? 'dist/worker/worker.js';
  const { bytes } = await buildWorker(out);
  console.log(`built ${out} (${Math.round(bytes / 1024)} KiB)`);
}
