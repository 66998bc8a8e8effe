import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KvNamespaceLike, kvStateStore } from '../../adapters/store/kv-state-store.ts';
import { r2HistoryStore } from '../../adapters/store/r2-history-store.ts';
import { type R2BucketLike, r2NoteStore } from '../../adapters/store/r2-note-store.ts';
import { loadMiniflare, type MiniflareInstance } from '../helpers/miniflare.ts';
import { runHistoryStoreContract } from './history-store.contract.ts';
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

// Small list pages and many objects: the listing at first use follows R2's cursor.
runHistoryStoreContract('r2HistoryStore (Miniflare R2)', {
  create: async () => {
    const prefix = fresh();
    const open = async () => r2HistoryStore({ bucket, prefix, listPageSize: 2 });
    return { store: await open(), reopen: open, cleanup: async () => {} };
  },
});

describe('r2HistoryStore beyond the contract', () => {
  const keysUnder = async (prefix: string) => {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, cursor });
      out.push(...page.objects.map((o) => o.key.slice(prefix.length)));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return out.sort();
  };

  it('keeps one object per append, switches with the pointer and deletes the old generation', async () => {
    const prefix = fresh();
    const store = r2HistoryStore({ bucket, prefix });
    await store.appendBlob(new TextEncoder().encode('ab'));
    await store.appendBlob(new TextEncoder().encode('cde'));
    await store.appendJournal('x\n');
    expect(await keysUnder(prefix)).toEqual([
      '0/journal/000000000000',
      '0/pack/0000000000000000',
      '0/pack/0000000000000002',
    ]);
    async function* one() {
      yield new TextEncoder().encode('cde');
    }
    await store.replace(one(), () => 'y\n');
    expect(await keysUnder(prefix)).toEqual(['1/journal/000000000000', '1/pack/0000000000000000', 'current']);
  });

  it('deletes at first use what a replace that died before its switch left behind', async () => {
    const prefix = fresh();
    const store = r2HistoryStore({ bucket, prefix });
    await store.appendBlob(new TextEncoder().encode('kept'));
    await store.appendJournal('kept\n');
    // A replace that died after writing its pieces and journal, before the pointer.
    await bucket.put(`${prefix}1/pack/0000000000000000`, new TextEncoder().encode('dead'));
    await bucket.put(`${prefix}1/journal/000000000000`, new TextEncoder().encode('dead\n'));
    const again = r2HistoryStore({ bucket, prefix });
    expect(await again.readJournal()).toBe('kept\n');
    expect(new TextDecoder().decode((await again.readBlob(0, 4))!)).toBe('kept');
    expect(await keysUnder(prefix)).toEqual(['0/journal/000000000000', '0/pack/0000000000000000']);
  });

  it('folds many journal objects into one when read, so the next start reads few', async () => {
    const prefix = fresh();
    const store = r2HistoryStore({ bucket, prefix });
    const lines = Array.from({ length: 40 }, (_, i) => `{"n":${i}}\n`);
    for (const l of lines) await store.appendJournal(l);
    const size = await store.size();
    const again = r2HistoryStore({ bucket, prefix });
    expect(await again.readJournal()).toBe(lines.join(''));
    expect(await keysUnder(prefix)).toEqual(['0/jbase/000000000039']);
    expect(await again.size()).toBe(size);
    await again.appendJournal('{"n":40}\n');
    // A stop between the fold and its deletes: an object it covers is still there.
    await bucket.put(`${prefix}0/journal/000000000005`, new TextEncoder().encode(lines[5]!));
    const third = r2HistoryStore({ bucket, prefix });
    expect(await third.readJournal()).toBe(`${lines.join('')}{"n":40}\n`);
    expect(await keysUnder(prefix)).toEqual(['0/jbase/000000000039', '0/journal/000000000040']);
    await third.appendJournal('{"n":41}\n');
    expect(await r2HistoryStore({ bucket, prefix }).readJournal()).toBe(
      `${lines.join('')}{"n":40}\n{"n":41}\n`,
    );
  });

  it('gathers the pieces of a replace into few objects', async () => {
    const prefix = fresh();
    const store = r2HistoryStore({ bucket, prefix });
    const piece = new Uint8Array(1000).fill(7);
    async function* many() {
      for (let i = 0; i < 500; i++) yield piece;
    }
    await store.replace(many(), () => '');
    expect(await keysUnder(`${prefix}1/pack/`)).toEqual(['0000000000000000']);
    expect(await store.readBlob(499_000, 1000)).toEqual(piece);
    expect(await store.size()).toBe(500_000);
  });

  it('its keys are hidden from the note store sharing the bucket under a dot-prefix', async () => {
    const prefix = fresh();
    const history = r2HistoryStore({ bucket, prefix: `${prefix}.quire/history/` });
    await history.appendBlob(new TextEncoder().encode('# not a note'));
    await history.appendJournal('{}\n');
    const notes = r2NoteStore({ bucket, prefix });
    await notes.write('real.md', new TextEncoder().encode('# Real'));
    expect((await notes.list()).map((f) => f.path)).toEqual(['real.md']);
    expect(await notes.listFolders()).toEqual([]);
  });
});
