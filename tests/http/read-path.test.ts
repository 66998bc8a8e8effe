import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { createCompressedList } from '../../adapters/http/list/compressed-list.ts';
import { createByteLru } from '../../adapters/http/note-cache.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../core/notes/service.ts';
import type { NoteStore } from '../../core/ports.ts';
import { createQuireClient } from '../../sdk/index.ts';
import { authApp } from '../helpers/auth-app.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';

/** A store that counts every call that touches a file. */
function countingStore(files: Record<string, string>) {
  const inner = memoryNoteStore({ files });
  const counts = { read: 0, stat: 0 };
  const store: NoteStore = {
    ...inner,
    read: (p) => {
      counts.read++;
      return inner.read(p);
    },
    stat: (p) => {
      counts.stat++;
      return inner.stat(p);
    },
  };
  return { store, counts };
}

function vault(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const p = `f${i % 7}/note-${String(i).padStart(5, '0')}.md`;
    files[p] = `# Note ${i}\n\nSee [[note-${String((i + 1) % n).padStart(5, '0')}]] and #tag${i % 13}.\n`;
  }
  return files;
}

async function app(files: Record<string, string>, opts: { noteCacheBytes?: number } = {}) {
  const { store, counts } = countingStore(files);
  const clock = { now: () => Date.now() };
  const notes = createNoteService({ store, clock, state: memoryStateStore(), logger: silentLogger });
  await notes.load();
  const a = createApp({ notes, version: '0.0.0-test', clock, logger: silentLogger, ...opts });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await a.request(`http://127.0.0.1:3000${path}`, { headers });
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  const send = (method: string, path: string, body: unknown) =>
    a.request(`http://127.0.0.1:3000${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return { app: a, notes, counts, get, send };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('compressed answers', () => {
  it('gzips and brotli-compresses the list, identical after decompression, with Vary', async () => {
    const t = await app(vault(700));
    const plain = await t.get('/api/v1/notes');
    expect(plain.res.headers.get('content-encoding')).toBeNull();
    expect(plain.res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(JSON.parse(text(plain.bytes)).data).toHaveLength(700);
    const gz = await t.get('/api/v1/notes', { 'accept-encoding': 'gzip, deflate' });
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
    expect(gz.res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(gz.res.headers.get('etag')).toBe(plain.res.headers.get('etag'));
    expect(gz.bytes.length).toBeLessThan(plain.bytes.length * 0.25);
    expect(text(gunzipSync(gz.bytes))).toBe(text(plain.bytes));
    // br is compressed off the event loop; gzip answers until it is ready.
    const br = await until('the condition', async () => {
      const r = await t.get('/api/v1/notes', { 'accept-encoding': 'gzip, br' });
      return r.res.headers.get('content-encoding') === 'br' ? r : null;
    });
    expect(text(brotliDecompressSync(br!.bytes))).toBe(text(plain.bytes));
    expect(
      (await t.get('/api/v1/notes', { 'accept-encoding': 'br;q=0, gzip' })).res.headers.get(
        'content-encoding',
      ),
    ).toBe('gzip');
  });

  it('keeps the gzip list identical to the plain one after writes (only changed chunks are redone)', async () => {
    const t = await app(vault(500));
    await t.get('/api/v1/notes', { 'accept-encoding': 'gzip' });
    expect(
      (await t.send('PUT', '/api/v1/notes/f3%2Fnote-00010.md', { content: '# Changed\n\n[[note-00400]]\n' }))
        .status,
    ).toBe(200);
    expect((await t.send('POST', '/api/v1/notes', { path: 'a-first.md', content: 'first' })).status).toBe(
      201,
    );
    expect((await t.send('DELETE', '/api/v1/notes/f0%2Fnote-00007.md', undefined)).status).toBe(200);
    const gz = await t.get('/api/v1/notes', { 'accept-encoding': 'gzip' });
    const plain = await t.get('/api/v1/notes');
    expect(text(gunzipSync(gz.bytes))).toBe(text(plain.bytes));
    const data = JSON.parse(text(plain.bytes)).data;
    expect(data).toHaveLength(500);
    expect(data[0].path).toBe('a-first.md');
    expect(data.find((n: { path: string }) => n.path === 'f3/note-00010.md').title).toBe('Changed');
  });

  it('redoes the chunks a write changed at a fast level, then polishes them: same bytes inflated, same size as a fresh build', async () => {
    const t = await app(vault(600));
    const z = await import('node:zlib');
    const list = createCompressedList();
    const summaries = () => t.notes.list();
    let cur = summaries();
    list.update(cur.generation, cur.items);
    const freshSize = list.gzip(z).length;
    expect(list.fastChunks()).toBe(0);
    expect((await t.send('PUT', '/api/v1/notes/f3%2Fnote-00010.md', { content: '# Changed\n' })).status).toBe(
      200,
    );
    cur = summaries();
    list.update(cur.generation, cur.items);
    const quick = list.gzip(z);
    // The changed note's chunk, the chunks of the notes whose backlinks changed, and the chunk after each.
    expect(list.fastChunks()).toBeGreaterThan(0);
    expect(list.fastChunks()).toBeLessThan(list.chunkCount() / 2);
    expect(text(gunzipSync(quick))).toBe(text(list.identity()));
    await list.polishNow();
    expect(list.fastChunks()).toBe(0);
    const polished = list.gzip(z);
    expect(polished).not.toBe(quick);
    expect(text(gunzipSync(polished))).toBe(text(list.identity()));
    const fresh = createCompressedList();
    fresh.update(cur.generation, cur.items);
    expect(polished.length).toBe(fresh.gzip(z).length);
    expect(Math.abs(polished.length - freshSize)).toBeLessThan(200);
  });

  it('compresses the folder tree when asked, identical after decompression', async () => {
    const t = await app(vault(300));
    const plain = await t.get('/api/v1/folders/tree');
    const gz = await t.get('/api/v1/folders/tree', { 'accept-encoding': 'gzip' });
    expect(gz.res.headers.get('content-encoding')).toBe('gzip');
    expect(gz.res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(plain.res.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(text(gunzipSync(gz.bytes))).toBe(text(plain.bytes));
    expect(JSON.parse(text(plain.bytes)).data.noteCount).toBe(300);
    const sub = await t.get('/api/v1/folders/tree/f2', { 'accept-encoding': 'gzip' });
    expect(JSON.parse(text(gunzipSync(sub.bytes))).data.path).toBe('f2');
    expect((await t.get('/api/v1/folders/tree/nope')).res.status).toBe(404);
  });
});

describe('list paging and field selection', () => {
  it('returns every note exactly once across pages while notes are created and deleted', async () => {
    const t = await app(vault(60));
    const original = new Set(Object.keys(vault(60)));
    const seen: string[] = [];
    const deleted = new Set<string>();
    let cursor = '';
    for (let page = 0; page < 100; page++) {
      const { res, bytes } = await t.get(`/api/v1/notes?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const body = JSON.parse(text(bytes));
      expect(body.data.length).toBeLessThanOrEqual(7);
      seen.push(...body.data.map((n: { path: string }) => n.path));
      // Between pages: create notes before and after the cursor, delete one seen and one not seen.
      await t.send('POST', '/api/v1/notes', { path: `a-new-${page}.md`, content: 'x' });
      await t.send('POST', '/api/v1/notes', { path: `z-new-${page}.md`, content: 'x' });
      const last = seen.at(-1)!;
      const unseen = [...original].find((p) => p > last && !deleted.has(p));
      for (const p of [seen[0]!, unseen]) {
        if (p && !deleted.has(p) && original.has(p)) {
          deleted.add(p);
          expect((await t.send('DELETE', `/api/v1/notes/${encodeURIComponent(p)}`, undefined)).status).toBe(
            200,
          );
        }
      }
      if (!body.page.nextCursor) break;
      cursor = body.page.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const survivors = [...original].filter((p) => !deleted.has(p));
    for (const p of survivors) expect(seen).toContain(p);
    expect([...seen].sort()).toEqual(seen);
  });

  it('the typed client pages through the lean list', async () => {
    const t = await app(vault(25));
    const client = createQuireClient({
      baseUrl: 'http://127.0.0.1:3000',
      fetch: (url, init) => Promise.resolve(t.app.request(String(url), init as RequestInit)),
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { items: { path: string; checksum: string }[]; nextCursor: string | null } =
        await client.notes.page({ limit: 10, cursor, fields: ['checksum'] });
      for (const n of page.items) expect(Object.keys(n).sort()).toEqual(['checksum', 'path']);
      seen.push(...page.items.map((n) => n.path));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(Object.keys(vault(25)).sort());
  });

  it('returns only the named fields, rejects unknown ones, and leaves the default answer alone', async () => {
    const t = await app(vault(20));
    const lean = await t.get('/api/v1/notes?fields=path,title,checksum,updatedAt');
    const body = JSON.parse(text(lean.bytes));
    expect(body.data).toHaveLength(20);
    for (const n of body.data)
      expect(Object.keys(n).sort()).toEqual(['checksum', 'path', 'title', 'updatedAt']);
    expect(body.page).toEqual({ limit: null, nextCursor: null });
    const bad = await t.get('/api/v1/notes?fields=path,content');
    expect(bad.res.status).toBe(400);
    const err = JSON.parse(text(bad.bytes));
    expect(err.error.code).toBe('VALIDATION_ERROR');
    expect(err.error.message).toContain('"content"');
    for (const q of ['limit=0', 'limit=abc', 'limit=1001', 'cursor=%%%', 'fields=']) {
      const r = await t.get(`/api/v1/notes?${q}`);
      expect(r.res.status, q).toBe(400);
    }
    const plain = await t.get('/api/v1/notes');
    const ignored = await t.get('/api/v1/notes?unknown=1&sort=desc');
    expect(text(ignored.bytes)).toBe(text(plain.bytes));
    expect(JSON.parse(text(plain.bytes)).page).toBeUndefined();
  });
});

describe('aliases in the list (fields=aliases)', () => {
  it("answers each note's frontmatter aliases only when asked, and follows a write", async () => {
    const t = await app({
      'a.md': '---\naliases: [First, Erste]\n---\n# A\n',
      'b.md': '---\nalias: Second\n---\n# B\n',
      'c.md': '# C\n',
      'd.md': '---\naliases: [7, Seventh]\n---\n# D\n',
    });
    const client = createQuireClient({
      baseUrl: 'http://127.0.0.1:3000',
      fetch: (url, init) => Promise.resolve(t.app.request(String(url), init as RequestInit)),
    });
    const all = await client.notes.page({ limit: null, fields: ['title', 'aliases'] });
    expect(all.nextCursor).toBeNull();
    expect(all.items).toEqual([
      { path: 'a.md', title: 'A', aliases: ['First', 'Erste'] },
      { path: 'b.md', title: 'B', aliases: ['Second'] },
      { path: 'c.md', title: 'C', aliases: [] },
      { path: 'd.md', title: 'D', aliases: ['Seventh'] },
    ]);
    // The spec's answer never carries them.
    const plain = JSON.parse(text((await t.get('/api/v1/notes')).bytes));
    for (const n of plain.data) expect(n).not.toHaveProperty('aliases');
    expect(
      (await t.send('PUT', '/api/v1/notes/c.md', { content: '---\naliases: Third\n---\n# C\n' })).status,
    ).toBe(200);
    const after = await client.notes.page({ limit: 2, fields: ['aliases'] });
    expect(after.items).toEqual([
      { path: 'a.md', aliases: ['First', 'Erste'] },
      { path: 'b.md', aliases: ['Second'] },
    ]);
    const rest = await client.notes.page({ limit: 2, cursor: after.nextCursor, fields: ['aliases'] });
    expect(rest.items).toEqual([
      { path: 'c.md', aliases: ['Third'] },
      { path: 'd.md', aliases: ['Seventh'] },
    ]);

    // A lean answer has an ETag per index version and shape: revalidation is a 304 until a write.
    const lean = await t.get('/api/v1/notes?fields=path,title,aliases');
    const etag = lean.res.headers.get('etag')!;
    expect(etag).toMatch(/^"l-/);
    expect(
      (await t.get('/api/v1/notes?fields=path,title,aliases', { 'if-none-match': etag })).res.status,
    ).toBe(304);
    expect((await t.get('/api/v1/notes?fields=path,title', { 'if-none-match': etag })).res.status).toBe(200);
    expect(
      (await t.send('PUT', '/api/v1/notes/d.md', { content: '---\naliases: [Renamed]\n---\n# D\n' })).status,
    ).toBe(200);
    const changed = await t.get('/api/v1/notes?fields=path,title,aliases', { 'if-none-match': etag });
    expect(changed.res.status).toBe(200);
    expect(JSON.parse(text(changed.bytes)).data.at(-1)).toEqual({
      path: 'd.md',
      title: 'D',
      aliases: ['Renamed'],
    });
  });
});

describe('note reads', () => {
  it('answers 304 from the index without reading the file, cold or cached', async () => {
    const t = await app(vault(10));
    const path = '/api/v1/notes/f1%2Fnote-00001.md';
    const before = { ...t.counts };
    const cold = await t.get(path, {
      'if-none-match': `"${t.notes.indexedSummary('f1/note-00001.md')!.checksum}"`,
    });
    expect(cold.res.status).toBe(304);
    expect(t.counts).toEqual(before);
    const first = await t.get(path);
    expect(first.res.status).toBe(200);
    const afterRead = { ...t.counts };
    expect(afterRead.read).toBeGreaterThan(before.read);
    const again = await t.get(path, { 'if-none-match': first.res.headers.get('etag')! });
    expect(again.res.status).toBe(304);
    const hit = await t.get(path);
    expect(text(hit.bytes)).toBe(text(first.bytes));
    expect(t.counts).toEqual(afterRead);
  });

  it('serves a fresh answer when the note or its backlinks change', async () => {
    const t = await app({ 'a.md': '# A', 'b.md': '# B' });
    const a1 = JSON.parse(text((await t.get('/api/v1/notes/a.md')).bytes)).data;
    expect(a1.backlinks).toEqual([]);
    await t.send('PUT', '/api/v1/notes/b.md', { content: 'now links [[a]]' });
    const a2 = JSON.parse(text((await t.get('/api/v1/notes/a.md')).bytes)).data;
    expect(a2.backlinks).toEqual([{ path: 'b.md', title: 'b' }]);
    await t.send('PUT', '/api/v1/notes/a.md', { content: '# A2' });
    const a3 = await t.get('/api/v1/notes/a.md');
    expect(JSON.parse(text(a3.bytes)).data.title).toBe('A2');
  });

  it('LRU in bytes: a hit refreshes recency, and the oldest goes first', () => {
    const lru = createByteLru<string>(30, (v) => v.length);
    lru.set('a', '0123456789');
    lru.set('b', '0123456789');
    lru.set('c', '0123456789');
    expect(lru.get('a')).toBe('0123456789');
    lru.set('d', '0123456789');
    expect(lru.keys()).toEqual(['c', 'a', 'd']);
    expect(lru.get('b')).toBeUndefined();
    lru.set('big', 'x'.repeat(31));
    expect(lru.get('big')).toBeUndefined();
    expect(lru.stats()).toMatchObject({ bytes: 30, entries: 3, evictions: 1 });
  });
});

describe('health', () => {
  it('does not grow with the vault: no collection the size of the vault is walked', async () => {
    const walked = async (notes: number) => {
      const t = await app(vault(notes));
      await t.get('/api/v1/health');
      let largest = 0;
      let calls = 0;
      const restore: (() => void)[] = [];
      const watch = (proto: object, names: (string | symbol)[], size: (self: unknown) => number) => {
        for (const name of names) {
          const orig = (proto as Record<string | symbol, unknown>)[name] as (...a: unknown[]) => unknown;
          (proto as Record<string | symbol, unknown>)[name] = function (this: unknown, ...a: unknown[]) {
            calls++;
            largest = Math.max(largest, size(this));
            return orig.apply(this, a);
          };
          restore.push(() => {
            (proto as Record<string | symbol, unknown>)[name] = orig;
          });
        }
      };
      watch(
        Map.prototype,
        ['values', 'keys', 'entries', 'forEach', Symbol.iterator],
        (m) => (m as Map<unknown, unknown>).size,
      );
      watch(
        Set.prototype,
        ['values', 'keys', 'entries', 'forEach', Symbol.iterator],
        (m) => (m as Set<unknown>).size,
      );
      watch(
        Array.prototype,
        ['map', 'forEach', 'filter', 'reduce', 'join', 'some', 'every', 'slice', 'sort', Symbol.iterator],
        (a) => (a as unknown[]).length,
      );
      let res: Response;
      try {
        res = await t.app.request('http://127.0.0.1:3000/api/v1/health');
      } finally {
        for (const r of restore) r();
      }
      const body = (await res.json()) as { data: { notes: number } };
      expect(body.data.notes).toBe(notes);
      return { largest, calls };
    };
    const small = await walked(10);
    const large = await walked(3000);
    expect(large.largest).toBeLessThan(50);
    expect(large.calls).toBe(small.calls);
  });

  it('keeps the byte total right across writes (system/info reads the same counter)', async () => {
    const t = await app({ 'a.md': '12345' });
    expect(t.notes.status().bytes).toBe(5);
    await t.send('POST', '/api/v1/notes', { path: 'b.md', content: '123' });
    await t.send('PUT', '/api/v1/notes/a.md', { content: '1' });
    expect(t.notes.status().bytes).toBe(4);
    await t.send('DELETE', '/api/v1/notes/a.md', undefined);
    expect(t.notes.status()).toMatchObject({ bytes: 3, notes: 1 });
  });
});

describe('authentication cache', () => {
  it('does not verify a key again on every request, and a revoke is felt at once', async () => {
    const t = await authApp();
    const minted = await t.service.mintKey('laptop');
    let verified = 0;
    const orig = t.service.verifyKey;
    t.service.verifyKey = async (k) => {
      verified++;
      return orig(k);
    };
    for (let i = 0; i < 5; i++)
      expect((await t.call('GET', '/api/v1/notes', { headers: t.key(minted.apiKey) })).status).toBe(200);
    expect(verified).toBe(1);
    await t.service.revokeKey(minted.id);
    const after = await t.call('GET', '/api/v1/notes', { headers: t.key(minted.apiKey) });
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe('INVALID_API_KEY');
    expect((await t.call('GET', '/api/v1/notes', { headers: t.key('quire_sk_wrong') })).status).toBe(401);
  });
});
