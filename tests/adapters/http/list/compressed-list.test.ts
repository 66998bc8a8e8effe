import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createCompressedList } from '../../../../adapters/http/list/compressed-list.ts';
import { stateListStore } from '../../../../adapters/http/list/persisted-list.ts';
import { memoryStateStore } from '../../../../adapters/store/memory-state-store.ts';
import type { NoteSummary } from '../../../../core/notes/note-index.ts';
import { until } from '../../../helpers/wait.ts';

const summary = (i: number, extra = ''): NoteSummary => ({
  path: `folder ${i % 9}/note ${i}.md`,
  title: `Note ${i}${extra}`,
  tags: [`t${i % 5}`],
  links: [
    {
      target: `note ${i + 1}`,
      path: `folder ${(i + 1) % 9}/note ${i + 1}.md`,
      kind: 'wikilink',
      type: 'note',
    },
  ],
  backlinks: [],
  wordCount: i,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
  checksum: 'x'.repeat(64),
});

describe('the compressed list', () => {
  it('deflates a first build on the thread pool at the full level: the same gzip answer as in place, nothing left to polish', async () => {
    const items = Array.from({ length: 3000 }, (_, i) => summary(i));
    const a = createCompressedList();
    a.update(1, items);
    const async = await a.gzipAsync(zlib);
    expect(zlib.gunzipSync(async).toString()).toBe(Buffer.from(a.identity()).toString());
    expect(a.chunkCount()).toBeGreaterThan(20);
    expect(a.fastChunks()).toBe(0);
    // Kept: the next answer is the same bytes without work.
    expect(await a.gzipAsync(zlib)).toBe(async);
    const b = createCompressedList();
    b.update(1, items);
    expect(Buffer.from(async).equals(Buffer.from(b.gzip(zlib)))).toBe(true);
  });

  it('deflates once for requests that come while a build runs: they share its answer', async () => {
    const items = Array.from({ length: 3000 }, (_, i) => summary(i));
    const list = createCompressedList();
    list.update(1, items);
    const chunks = list.chunkCount();
    const answers = await Promise.all(Array.from({ length: 8 }, () => list.gzipAsync(zlib)));
    for (const a of answers) expect(a).toBe(answers[0]);
    // Each chunk, and the head and the tail, deflated once: not once for each of the 8 requests.
    expect(list.work().deflated).toBeLessThanOrEqual(chunks + 2);
    expect(zlib.gunzipSync(answers[0]!).toString()).toBe(Buffer.from(list.identity()).toString());
  });

  it('cuts a deferred first list in slices, and a request that comes once it is cut shares the build', async () => {
    const items = Array.from({ length: 6000 }, (_, i) => summary(i));
    const list = createCompressedList({ store: stateListStore(memoryStateStore()) });
    let built = 0;
    list.update(1, () => {
      built++;
      return items;
    });
    // Nothing is cut in the turn the first request comes in: the cut yields to the event loop.
    const first = list.gzipAsync(zlib);
    expect(list.chunkCount()).toBe(0);
    await until('the list cut', () => list.chunkCount() > 0);
    const chunks = list.chunkCount();
    const [a, b] = await Promise.all([first, list.gzipAsync(zlib)]);
    expect(b).toBe(a);
    expect(built).toBe(1);
    expect(list.work().deflated).toBeLessThanOrEqual(chunks + 2);
    expect(zlib.gunzipSync(a).toString()).toBe(JSON.stringify({ success: true, data: items }));
  });

  it('deflates a first build with nothing persisted while it is cut, four at a time, into the same answer as in place', async () => {
    const items = Array.from({ length: 6000 }, (_, i) => summary(i));
    const store = stateListStore(memoryStateStore());
    const list = createCompressedList({ store });
    // node:zlib, watched: how much was cut when the first chunk's deflate started, and how many ran at once.
    let running = 0;
    let most = 0;
    let cutAtFirst = -1;
    const z = {
      ...zlib,
      deflateRaw: (buf: Uint8Array, opts: zlib.ZlibOptions, cb: (err: Error | null, out: Buffer) => void) => {
        if (cutAtFirst < 0) cutAtFirst = list.work().serialized;
        running++;
        most = Math.max(most, running);
        zlib.deflateRaw(buf, opts, (err, out) => {
          running--;
          cb(err, out);
        });
      },
    } as typeof zlib;
    list.update(1, () => items);
    const gz = await list.gzipAsync(z);
    const chunks = list.chunkCount();
    expect(chunks).toBeGreaterThan(100);
    // The pool deflated the first chunk as soon as it was cut, not after the last.
    expect(cutAtFirst).toBe(1);
    expect(most).toBe(4);
    expect(list.work().deflated).toBe(chunks + 2);
    expect(list.fastChunks()).toBe(0);
    const inPlace = createCompressedList();
    inPlace.update(1, items);
    expect(Buffer.from(gz).equals(Buffer.from(inPlace.gzip(zlib)))).toBe(true);
    // Persisted whole: the next start takes every chunk from it and deflates none.
    await list.persistNow(zlib);
    expect(list.work().saved).toBe(1);
    const next = createCompressedList({ store });
    next.update(1, () => items);
    expect(Buffer.from(await next.gzipAsync(zlib)).equals(Buffer.from(gz))).toBe(true);
    expect(next.work().restored).toBe(chunks);
    expect(next.work().deflated).toBe(2);
  });

  it('keeps no second copy of the list for the gzip answer; the plain answer is inflated from it', async () => {
    const items = Array.from({ length: 2000 }, (_, i) => summary(i));
    const list = createCompressedList();
    list.update(1, items);
    const gz = await list.gzipAsync(zlib);
    expect(list.heldJsonBytes().identity).toBe(0);
    const plain = await list.identityAsync(zlib);
    expect(Buffer.from(plain).toString()).toBe(JSON.stringify({ success: true, data: items }));
    expect(Buffer.from(zlib.gunzipSync(gz)).equals(Buffer.from(plain))).toBe(true);
    list.update(
      2,
      items.map((s, i) => (i === 1000 ? summary(i, ' changed') : s)),
    );
    await list.gzipAsync(zlib);
    expect(list.heldJsonBytes().identity).toBe(0);
    expect(Buffer.from(await list.identityAsync(zlib)).toString()).toContain('Note 1000 changed');
  });

  it('answers the version it started with when a write lands meanwhile, and then the new one', async () => {
    const items = Array.from({ length: 2000 }, (_, i) => summary(i));
    const list = createCompressedList();
    list.update(1, items);
    const before = Buffer.from(list.identity()).toString();
    const pending = list.gzipAsync(zlib);
    const changed = items.map((s, i) => (i === 700 ? summary(i, ' changed') : s));
    list.update(2, changed);
    expect(zlib.gunzipSync(await pending).toString()).toBe(before);
    const after = await list.gzipAsync(zlib);
    expect(zlib.gunzipSync(after).toString()).toBe(Buffer.from(list.identity()).toString());
    expect(zlib.gunzipSync(after).toString()).toContain('Note 700 changed');
  });
});
