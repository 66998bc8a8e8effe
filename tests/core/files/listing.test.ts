import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { createFileService } from '../../../core/files/service.ts';
import type { FileStore } from '../../../core/ports.ts';

const body = (text: string) => new Blob([text]).stream();

/**
 * The attachment listing behind the folder tree (a fuzz finding: relayed tree requests with no
 * answer within 10 s). A walk of the vault is one file-system call per folder and file in
 * sequence; every write dropped the listing, so every tree request walked, and behind a busy
 * thread pool each walk took seconds. Here the store's walk can be held open at will: a tree
 * request never waits on it longer than `listWaitMs`, and writes never cause one.
 */
function heldStore(files: Record<string, string>) {
  const inner = memoryFileStore({ files });
  let walks = 0;
  let release: (() => void) | null = null;
  let hold = false;
  const store: FileStore = {
    ...inner,
    async list() {
      walks++;
      if (hold) await new Promise<void>((r) => (release = r));
      return inner.list();
    },
  };
  return {
    store,
    inner,
    walks: () => walks,
    hold: () => {
      hold = true;
    },
    release: () => {
      hold = false;
      release?.();
    },
  };
}

describe('the attachment listing', () => {
  it('is walked once; writes here keep it current without another walk', async () => {
    const h = heldStore({ 'a.png': 'a', 'd/b.png': 'b' });
    let now = 1_000;
    const files = createFileService({ store: h.store, clock: { now: () => now }, listTtlMs: 2_000 });
    expect((await files.list()).map((f) => f.path)).toEqual(['a.png', 'd/b.png']);
    await files.put('d/c.png', body('cc'));
    await files.move('a.png', 'e/a.png');
    await files.remove('d/b.png');
    await files.put('d/c.png', body('ccc'));
    const list = await files.list();
    expect(list.map((f) => [f.path, f.size])).toEqual([
      ['d/c.png', 3],
      ['e/a.png', 1],
    ]);
    expect(h.walks()).toBe(1);
    now += 1_000;
    await files.list();
    expect(h.walks()).toBe(1);
  });

  it('never makes a request wait on a slow walk: the last listing (with writes since) answers', async () => {
    const h = heldStore({ 'a.png': 'a' });
    let now = 1_000;
    const files = createFileService({
      store: h.store,
      clock: { now: () => now },
      listTtlMs: 2_000,
      listWaitMs: 50,
    });
    await files.list();
    // Time for a new walk; this one is held (a thread pool busy with fsyncs, say).
    now += 5_000;
    h.hold();
    await h.inner.write('outside.png', body('o'), 100); // a file made outside the server
    const started = performance.now();
    const during = await Promise.all([files.list(), files.list(), files.list()]);
    expect(performance.now() - started).toBeLessThan(2_000);
    for (const l of during) expect(l.map((f) => f.path)).toEqual(['a.png']);
    expect(h.walks()).toBe(2); // one walk for all of them
    // A write during the walk shows at once, and survives the walk's older picture.
    await files.put('during.png', body('d'));
    expect((await files.list()).map((f) => f.path)).toEqual(['a.png', 'during.png']);
    await files.remove('a.png');
    h.release();
    await expect
      .poll(async () => (await files.list()).map((f) => f.path))
      .toEqual(['during.png', 'outside.png']);
    expect(h.walks()).toBe(2);
  });

  it('waits for a walk that is quick, so a file made outside shows after the reuse time', async () => {
    const h = heldStore({ 'a.png': 'a' });
    let now = 1_000;
    const files = createFileService({ store: h.store, clock: { now: () => now }, listTtlMs: 2_000 });
    await files.list();
    await h.inner.write('outside.png', body('o'), 100);
    expect((await files.list()).map((f) => f.path)).toEqual(['a.png']);
    now += 2_001;
    expect((await files.list()).map((f) => f.path)).toEqual(['a.png', 'outside.png']);
  });

  it('a failed walk keeps the last listing, and the next list tries again', async () => {
    const inner = memoryFileStore({ files: { 'a.png': 'a' } });
    let fail = false;
    const store: FileStore = {
      ...inner,
      list: async () => {
        if (fail) throw new Error('EIO');
        return inner.list();
      },
    };
    let now = 1_000;
    const files = createFileService({ store, clock: { now: () => now }, listTtlMs: 10 });
    await files.list();
    fail = true;
    now += 100;
    expect((await files.list()).map((f) => f.path)).toEqual(['a.png']);
    fail = false;
    await inner.write('b.png', body('b'), 100);
    expect((await files.list()).map((f) => f.path)).toEqual(['a.png', 'b.png']);
  });
});
