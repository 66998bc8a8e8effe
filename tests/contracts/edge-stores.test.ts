import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KvNamespaceLike, kvStateStore } from '../../adapters/store/kv-state-store.ts';
import { type R2BucketLike, r2NoteStore } from '../../adapters/store/r2-note-store.ts';
import type { StateStore } from '../../core/ports.ts';
import { runNoteStoreContract } from './note-store.contract.ts';

// Miniflare's local R2 and KV (workerd's own implementations), reached from Node through its
// binding proxies: the same calls a Worker makes on its bindings.
let mf: Miniflare;
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

describe('kvStateStore (Miniflare KV)', () => {
  let state: StateStore;
  beforeAll(() => {
    state = kvStateStore({ kv, prefix: fresh() });
  });

  it('get of an absent key is null; put then get returns the text, non-ASCII and empty included', async () => {
    expect(await state.get('absent')).toBeNull();
    await state.put('index-cache.json', '{"notes":["日本語","café"],"emoji":"👩🏽‍💻"}\n');
    await state.put('empty', '');
    expect(await state.get('index-cache.json')).toBe('{"notes":["日本語","café"],"emoji":"👩🏽‍💻"}\n');
    expect(await state.get('empty')).toBe('');
  });

  it('put replaces the whole value; remove deletes one key and is quiet when absent', async () => {
    await state.put('k', 'a long first value '.repeat(50));
    await state.put('k', 'short');
    expect(await state.get('k')).toBe('short');
    await state.put('other', '2');
    await state.remove('k');
    expect(await state.get('k')).toBeNull();
    expect(await state.get('other')).toBe('2');
    await expect(state.remove('never-there')).resolves.toBeUndefined();
  });

  it('readers see the old or the new value, never a mix', async () => {
    const before = 'a'.repeat(512 * 1024);
    const after = 'b'.repeat(400 * 1024);
    await state.put('big', before);
    const reads: Promise<string | null>[] = [];
    const writing = state.put('big', after);
    for (let i = 0; i < 10; i++) reads.push(state.get('big'));
    await writing;
    for (const value of await Promise.all(reads)) expect(value === before || value === after).toBe(true);
    expect(await state.get('big')).toBe(after);
  });

  it('keeps keys under its prefix and refuses a value over the KV limit, naming the key', async () => {
    const prefix = fresh();
    await kvStateStore({ kv, prefix }).put('credentials.json', '{}');
    expect(await kv.get(`${prefix}credentials.json`, 'text')).toBe('{}');
    const huge = 'x'.repeat(25 * 1024 * 1024 + 1);
    await expect(state.put('index-cache.json', huge)).rejects.toThrow(/index-cache\.json.*25 MiB/);
  });
});
