import { afterEach, beforeEach, describe, expect } from 'vitest';
import { isDomainError } from '../../core/errors.ts';
import type { FileStore } from '../../core/ports.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/** How the contract gets a fresh, empty file store for each case, and disposes of it. */
export interface FileStoreFactory {
  create: () => Promise<{ store: FileStore; cleanup(): Promise<void> }>;
  /** Cases this adapter does not run, each with the reason (tests/contracts/skips.ts). */
  skip?: DeclaredSkip[];
}

const streamOf = (...chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(ctl) {
      for (const c of chunks) ctl.enqueue(c);
      ctl.close();
    },
  });
const bytesOf = async (s: ReadableStream<Uint8Array> | null) =>
  s ? new Uint8Array(await new Response(s).arrayBuffer()) : null;

/** The guarantees of the FileStore port (see `core/ports.ts`), run against every adapter. */
export function runFileStoreContract(name: string, factory: FileStoreFactory): void {
  describe(`FileStore contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(factory.skip);
    let store: FileStore;
    let cleanup: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await factory.create();
      store = made.store;
      cleanup = made.cleanup;
    });
    afterEach(async () => {
      await cleanup?.();
    });

    test('writes a stream, stats and reads it back, whole and by range', async () => {
      const info = await store.write(
        'a/b/pic.png',
        streamOf(new Uint8Array([1, 2]), new Uint8Array([3, 4, 5])),
        100,
      );
      expect(info).toMatchObject({ path: 'a/b/pic.png', size: 5 });
      expect(await store.stat('a/b/pic.png')).toMatchObject({ size: 5 });
      expect(await bytesOf(await store.read('a/b/pic.png'))).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
      expect(await bytesOf(await store.read('a/b/pic.png', { start: 1, end: 3 }))).toEqual(
        new Uint8Array([2, 3, 4]),
      );
      expect(await store.stat('nope.png')).toBeNull();
      expect(await store.read('nope.png')).toBeNull();
    });

    test('refuses a body over the limit and keeps the old bytes', async () => {
      await store.write('x.bin', streamOf(new Uint8Array([9])), 10);
      const err = await store
        .write('x.bin', streamOf(new Uint8Array(8), new Uint8Array(8)), 10)
        .catch((e) => e);
      expect(isDomainError(err) && err.code).toBe('PAYLOAD_TOO_LARGE');
      expect(await bytesOf(await store.read('x.bin'))).toEqual(new Uint8Array([9]));
      const fresh = await store.write('y.bin', streamOf(new Uint8Array(11)), 10).catch((e) => e);
      expect(isDomainError(fresh)).toBe(true);
      expect(await store.stat('y.bin')).toBeNull();
      expect((await store.list()).map((f) => f.path)).toEqual(['x.bin']);
    });

    test('moves the mtime forward on a replace', async () => {
      const a = await store.write('m.bin', streamOf(new Uint8Array([1])), 10);
      const b = await store.write('m.bin', streamOf(new Uint8Array([2])), 10);
      expect(b.mtimeMs).toBeGreaterThan(a.mtimeMs);
    });

    test('moves without clobbering, removes, and lists attachments only', async () => {
      await store.write('one.png', streamOf(new Uint8Array([1])), 10);
      await store.write('two.png', streamOf(new Uint8Array([2])), 10);
      const clash = await store.move('one.png', 'two.png').catch((e) => e);
      expect(isDomainError(clash) && clash.code).toBe('FILE_ALREADY_EXISTS');
      expect(await bytesOf(await store.read('two.png'))).toEqual(new Uint8Array([2]));
      expect(await store.move('one.png', 'sub/three.png')).toMatchObject({ path: 'sub/three.png', size: 1 });
      expect(await store.stat('one.png')).toBeNull();
      expect(await store.remove('two.png')).toBe(true);
      expect(await store.remove('two.png')).toBe(false);
      expect((await store.list()).map((f) => f.path)).toEqual(['sub/three.png']);
    });

    checkSkips();
  });
}
