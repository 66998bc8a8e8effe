import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KvNamespaceLike, kvStateStore } from '../../adapters/store/kv-state-store.ts';
import { type R2BucketLike, r2NoteStore } from '../../adapters/store/r2-note-store.ts';
import { loadMiniflare, type MiniflareInstance } from '../helpers/miniflare.ts';
import { NOTE_STORE_CASES, runNoteStoreContract } from './note-store.contract.ts';
import { runStateStoreContract } from './state-store.contract.ts';

// Miniflare is installed on first use into .cache/on-demand (not by npm ci): once, before any timeout.
const Miniflare = await loadMiniflare();

// Miniflare's local R2 and KV (workerd's own implementations), reached from Node through its
// binding proxies: the same calls a Worker makes on its bindings.
let mf: MiniflareInstance;
let bucket: R2BucketLike;
let kv: KvNamespaceLike;
let n = 0;
const fresh = () => `case-${process.pid}-${++n}/`;

beforeAll(async () => {
  mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response(null, { status: 404 }) } }',
    compatibilityDate: '2026-04-01',
    r2Buckets: ['NOTES'],
    kvNamespaces: ['STATE'],
  });
  bucket = (await mf.getR2Bucket('NOTES')) as unknown as R2BucketLike;
  kv = (await mf.getKVNamespace('STATE')) as unknown as KvNamespaceLike;
});
afterAll(async () => {
  await mf?.dispose();
});

// Each case gets its own key prefix in the one bucket, so "an empty store" is empty.
runNoteStoreContract('r2NoteStore (Miniflare R2)', {
  create: async () => ({ store: r2NoteStore({ bucket, prefix: fresh() }), cleanup: async () => {} }),
  skip: [
    {
      reason: 'R2 answers a read with the object and its facts already: there is no separate stat to save',
      tests: [NOTE_STORE_CASES.readWithInfo],
    },
  ],
});

describe('r2NoteStore beyond the contract', () => {
  it('skips dot-folders and takes the upload time for objects other tools put', async () => {
    const prefix = fresh();
    await bucket.put(`${prefix}.obsidian/workspace.md`, new TextEncoder().encode('hidden'));
    await bucket.put(`${prefix}synced/by-rclone.md`, new TextEncoder().encode('# Synced'));
    const store = r2NoteStore({ bucket, prefix });
    const listed = await store.list();
    expect(listed.map((f) => f.path)).toEqual(['synced/by-rclone.md']);
    expect(Math.abs(listed[0]!.mtimeMs - Date.now())).toBeLessThan(60_000);
    expect(await store.listFolders()).toEqual(['synced']);
  });

  it('lists past one page of R2 results', async () => {
    const store = r2NoteStore({ bucket, prefix: fresh(), listPageSize: 7 });
    const paths = Array.from({ length: 30 }, (_, i) => `many/n${String(i).padStart(2, '0')}.md`);
    await Promise.all(paths.map((p) => store.write(p, new Uint8Array([120]))));
    expect((await store.list()).map((f) => f.path).sort()).toEqual(paths);
    expect(await store.listFolders()).toEqual(['many']);
  });
});

runStateStoreContract('kvStateStore (Miniflare KV)', {
  create: async () => {
    const prefix = fresh();
    return {
      store: kvStateStore({ kv, prefix }),
      reopen: async () => kvStateStore({ kv, prefix }),
      cleanup: async () => {},
    };
  },
});

describe('kvStateStore beyond the contract', () => {
  it('keeps keys under its prefix and refuses a value over the KV limit, naming the key', async () => {
    const prefix = fresh();
    const state = kvStateStore({ kv, prefix });
    await state.put('credentials.json', '{}');
    expect(await kv.get(`${prefix}credentials.json`, 'text')).toBe('{}');
    expect(await kv.get('credentials.json', 'text')).toBeNull();
    const huge = 'x'.repeat(25 * 1024 * 1024 + 1);
    await expect(state.put('index-cache.json', huge)).rejects.toThrow(/index-cache\.json.*25 MiB/);
    expect(await state.get('index-cache.json')).toBeNull();
  });
});
