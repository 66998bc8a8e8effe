import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { FileInfo, NoteStore } from '../../core/ports.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/** Titles of the cases an adapter may declare it skips. */
export const NOTE_STORE_CASES = {
  readWithInfo:
    'readWithInfo (an optional capability) gives what read and stat give, and null for a missing file',
} as const;

/** How the contract gets a fresh, empty store for each case, and disposes of it. */
export interface NoteStoreFactory {
  create: () => Promise<{ store: NoteStore; cleanup(): Promise<void> }>;
  /** Cases this adapter does not run, each with the reason (tests/contracts/skips.ts). */
  skip?: DeclaredSkip[];
}

const enc = (text: string) => new TextEncoder().encode(text);
/** `length` bytes all equal to `fill`, so a torn or mixed write is visible. */
const filled = (fill: number, length: number) => new Uint8Array(length).fill(fill);
const paths = (infos: FileInfo[]) => infos.map((i) => i.path).sort();
const sameBytes = (a: Uint8Array | null, b: Uint8Array) =>
  a !== null && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The guarantees of the NoteStore port (see `core/ports.ts`), run against every adapter.
 * Each case gets a fresh, empty store from `create` and disposes of it afterwards.
 */
export function runNoteStoreContract(name: string, factory: NoteStoreFactory): void {
  describe(`NoteStore contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(factory.skip);
    let store: NoteStore;
    let cleanup: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      const made = await factory.create();
      store = made.store;
      cleanup = made.cleanup;
    });
    afterEach(async () => {
      await cleanup?.();
      cleanup = undefined;
    });

    describe('read and stat', () => {
      test(NOTE_STORE_CASES.readWithInfo, async () => {
        await store.write('folder/n.md', enc('héllo ✓'));
        const read = store.readWithInfo!;
        const got = await read('folder/n.md');
        expect(sameBytes(got!.bytes, (await store.read('folder/n.md'))!)).toBe(true);
        expect(got!.info).toEqual(await store.stat('folder/n.md'));
        expect(await read('missing.md')).toBeNull();
        expect(await read('folder')).toBeNull();
      });

      test('read and stat of a missing file are null', async () => {
        expect(await store.read('missing.md')).toBeNull();
        expect(await store.read('no/such/folder/missing.md')).toBeNull();
        expect(await store.stat('missing.md')).toBeNull();
        expect(await store.stat('no/such/folder/missing.md')).toBeNull();
      });

      test('a folder is not a file: read, stat and remove of a folder path are null, null, false', async () => {
        await store.write('folder.md/inner.md', enc('inside'));
        expect(await store.read('folder.md')).toBeNull();
        expect(await store.stat('folder.md')).toBeNull();
        expect(await store.remove('folder.md')).toBe(false);
        expect(await store.read('folder.md/inner.md')).toEqual(enc('inside'));
      });

      test('an empty file is not a missing file', async () => {
        const info = await store.write('empty.md', new Uint8Array(0));
        expect(info.size).toBe(0);
        const bytes = await store.read('empty.md');
        expect(bytes).toBeInstanceOf(Uint8Array);
        expect(bytes?.length).toBe(0);
        expect((await store.stat('empty.md'))?.size).toBe(0);
      });

      test('stat returns the path, size in bytes and a wall-clock mtimeMs', async () => {
        const text = 'héllo wörld ✓'; // 13 characters, 17 bytes (é, ö: 2 each; ✓: 3)
        const written = await store.write('notes/stat.md', enc(text));
        const info = await store.stat('notes/stat.md');
        expect(info).not.toBeNull();
        expect(info?.path).toBe('notes/stat.md');
        expect(info?.size).toBe(17);
        expect(typeof info?.mtimeMs).toBe('number');
        expect(Number.isFinite(info?.mtimeMs)).toBe(true);
        expect(Math.abs((info?.mtimeMs ?? 0) - Date.now())).toBeLessThan(10 * 60_000);
        expect(written).toEqual(info);
      });
    });

    describe('write', () => {
      test('write then read returns the same bytes: ASCII, non-ASCII and binary-ish', async () => {
        const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
        const cases: [string, Uint8Array][] = [
          ['ascii.md', enc('# Title\n\nplain text\n')],
          ['unicode.md', enc('日本語 — café — 👩🏽‍💻 — e\u0301 — \u202Ertl\n')],
          ['crlf.md', enc('line one\r\nline two\r\n\r\n')],
          ['binary.md', everyByte],
          ['invalid-utf8.md', Uint8Array.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xe2, 0x82, 0x00, 0x0a])],
        ];
        for (const [path, bytes] of cases) {
          const info = await store.write(path, bytes);
          expect(info).toMatchObject({ path, size: bytes.length });
        }
        for (const [path, bytes] of cases) expect(await store.read(path)).toEqual(bytes);
      });

      test('paths with spaces and non-ASCII characters round-trip through write, read and list', async () => {
        const path = 'Ünïcødé folder/日本語 note with spaces.md';
        await store.write(path, enc('x'));
        expect(await store.read(path)).toEqual(enc('x'));
        expect(paths(await store.list())).toEqual([path]);
        expect(await store.listFolders()).toEqual(['Ünïcødé folder']);
      });

      test('write creates every missing parent folder', async () => {
        await store.write('a/b/c/deep.md', enc('deep'));
        expect(await store.read('a/b/c/deep.md')).toEqual(enc('deep'));
        expect((await store.listFolders()).sort()).toEqual(['a', 'a/b', 'a/b/c']);
      });

      test('write replaces the whole file (no tail of the longer old content survives)', async () => {
        await store.write('replace.md', enc('a much longer original content\n'.repeat(100)));
        const info = await store.write('replace.md', enc('short'));
        expect(await store.read('replace.md')).toEqual(enc('short'));
        expect(info.size).toBe(5);
        expect((await store.stat('replace.md'))?.size).toBe(5);
      });

      test('every write is visible as a change of (size, mtimeMs), even same-size writes back to back', async () => {
        // Readers (the note index) skip a file whose size and mtime they have seen before, so two
        // quick writes of the same size must never share an mtime, however coarse the clock.
        const seen = new Set<string>();
        for (let i = 0; i < 25; i++) {
          const info = await store.write('same.md', enc(`version ${String(i).padStart(2, '0')}`));
          expect(info.size).toBe(10);
          const key = `${info.size}:${info.mtimeMs}`;
          expect(seen.has(key), `write #${i} repeated (size, mtimeMs) ${key}`).toBe(false);
          seen.add(key);
          expect(await store.stat('same.md')).toEqual(info);
        }
      });

      test('the store keeps its own copy: mutating the written or the returned bytes changes nothing', async () => {
        const input = enc('original');
        await store.write('copy.md', input);
        input.fill(0x21);
        const first = await store.read('copy.md');
        expect(first).toEqual(enc('original'));
        first?.fill(0x3f);
        expect(await store.read('copy.md')).toEqual(enc('original'));
      });
    });

    describe('move', () => {
      test('move renames, creates parents, and the source is gone after', async () => {
        const bytes = enc('moving content ✓');
        await store.write('old/place.md', bytes);
        const info = await store.move('old/place.md', 'new/deeper/renamed.md');
        expect(info).toMatchObject({ path: 'new/deeper/renamed.md', size: bytes.length });
        expect(Number.isFinite(info.mtimeMs)).toBe(true);
        expect(await store.read('new/deeper/renamed.md')).toEqual(bytes);
        expect(await store.stat('new/deeper/renamed.md')).toEqual(info);
        expect(await store.read('old/place.md')).toBeNull();
        expect(await store.stat('old/place.md')).toBeNull();
        expect(paths(await store.list())).toEqual(['new/deeper/renamed.md']);
        const folders = await store.listFolders();
        expect(folders).toContain('new');
        expect(folders).toContain('new/deeper');
      });

      test('move within the same folder keeps the bytes', async () => {
        await store.write('same/a.md', filled(0x41, 4096));
        await store.move('same/a.md', 'same/b.md');
        expect(await store.read('same/b.md')).toEqual(filled(0x41, 4096));
        expect(await store.read('same/a.md')).toBeNull();
      });

      test('move of a missing source rejects and creates nothing', async () => {
        await expect(store.move('ghost.md', 'target.md')).rejects.toThrow();
        expect(await store.read('target.md')).toBeNull();
        expect(await store.list()).toEqual([]);
      });

      test('move never clobbers an existing destination', async () => {
        await store.write('a.md', enc('A'));
        await store.write('dir/b.md', enc('B'));
        await expect(store.move('a.md', 'dir/b.md')).rejects.toThrow();
        expect(await store.read('a.md')).toEqual(enc('A'));
        expect(await store.read('dir/b.md')).toEqual(enc('B'));
      });
    });

    describe('remove', () => {
      test('remove returns true, then false; the file is gone and its folder is kept', async () => {
        await store.write('keep/folder/gone.md', enc('bye'));
        expect(await store.remove('keep/folder/gone.md')).toBe(true);
        expect(await store.remove('keep/folder/gone.md')).toBe(false);
        expect(await store.read('keep/folder/gone.md')).toBeNull();
        expect(await store.stat('keep/folder/gone.md')).toBeNull();
        expect(await store.list()).toEqual([]);
        expect((await store.listFolders()).sort()).toEqual(['keep', 'keep/folder']);
      });

      test('remove of a path that never existed is false', async () => {
        expect(await store.remove('never.md')).toBe(false);
        expect(await store.remove('no/such/folder/never.md')).toBe(false);
      });

      test('remove touches only its own file', async () => {
        await store.write('dir/a.md', enc('a'));
        await store.write('dir/b.md', enc('b'));
        await store.remove('dir/a.md');
        expect(await store.read('dir/b.md')).toEqual(enc('b'));
        expect(paths(await store.list())).toEqual(['dir/b.md']);
      });
    });

    describe('list and listFolders', () => {
      test('an empty store lists nothing', async () => {
        expect(await store.list()).toEqual([]);
        expect(await store.listFolders()).toEqual([]);
      });

      test('list returns every .md file recursively, with size and mtime, and no other file', async () => {
        const notes: Record<string, string> = {
          'top.md': 'top',
          'sub/second.md': 'second level',
          'sub/deep/er/third.md': 'third level, deeper',
        };
        for (const [path, text] of Object.entries(notes)) await store.write(path, enc(text));
        for (const other of ['readme.txt', 'sub/image.png', 'sub/deep/no-extension', 'sub/notes.md.bak']) {
          await store.write(other, enc('not a note'));
        }
        const listed = await store.list();
        expect(paths(listed)).toEqual(Object.keys(notes).sort());
        for (const info of listed) {
          expect(info.size).toBe(enc(notes[info.path]!).length);
          expect(info).toEqual(await store.stat(info.path));
        }
      });

      test('listed paths are vault-relative POSIX paths', async () => {
        await store.write('x/y/z.md', enc('z'));
        for (const { path } of await store.list()) {
          expect(path.startsWith('/')).toBe(false);
          expect(path.includes('\\')).toBe(false);
          expect(path.split('/')).not.toContain('..');
        }
        for (const folder of await store.listFolders()) {
          expect(folder).not.toBe('');
          expect(folder.endsWith('/')).toBe(false);
          expect(folder.startsWith('/')).toBe(false);
        }
      });

      test('listFolders includes nested folders and folders left empty by a remove, once each', async () => {
        await store.write('a/b/c/n.md', enc('n'));
        await store.write('a/b/other.md', enc('o'));
        await store.write('x/n.md', enc('n'));
        await store.remove('x/n.md');
        await store.remove('a/b/c/n.md');
        expect((await store.listFolders()).sort()).toEqual(['a', 'a/b', 'a/b/c', 'x']);
      });

      test('listAll (an optional capability) answers what list and listFolders answer, in one walk', async () => {
        if (!store.listAll) return;
        await store.write('a/b/n.md', enc('n'));
        await store.write('top.md', enc('t'));
        await store.write('x/y/z/deep.md', enc('d'));
        await store.remove('x/y/z/deep.md');
        const all = await store.listAll();
        const byPath = (l: FileInfo[]) => [...l].sort((a, b) => (a.path < b.path ? -1 : 1));
        expect(byPath(all.notes)).toEqual(byPath(await store.list()));
        expect([...all.folders].sort()).toEqual((await store.listFolders()).sort());
        // No note is listed as another file.
        expect(all.files.filter((f) => f.path.toLowerCase().endsWith('.md'))).toEqual([]);
        expect(all.watched).toBe(false);
      });
    });

    describe('concurrency', () => {
      test('concurrent writes to one path end with exactly one of the written contents, in full', async () => {
        const versions = Array.from({ length: 12 }, (_, i) => filled(0x41 + i, 64 * 1024 + i * 1024));
        await Promise.all(versions.map((bytes) => store.write('contended.md', bytes)));
        const final = await store.read('contended.md');
        const matches = versions.filter((v) => sameBytes(final, v));
        expect(matches).toHaveLength(1);
        expect((await store.stat('contended.md'))?.size).toBe(matches[0]?.length);
        expect(paths(await store.list())).toEqual(['contended.md']);
      });

      test('readers during a write see the old or the new bytes, never a mix', async () => {
        const before = filled(0x61, 256 * 1024);
        const after = filled(0x62, 200 * 1024);
        await store.write('torn.md', before);
        const reads: Promise<Uint8Array | null>[] = [];
        const writing = store.write('torn.md', after);
        for (let i = 0; i < 20; i++) reads.push(store.read('torn.md'));
        await writing;
        for (const bytes of await Promise.all(reads)) {
          expect(sameBytes(bytes, before) || sameBytes(bytes, after)).toBe(true);
        }
        expect(await store.read('torn.md')).toEqual(after);
      });

      test('concurrent writes creating one new folder tree all succeed', async () => {
        const targets = Array.from({ length: 16 }, (_, i) => `shared/new/tree/n${i}.md`);
        await Promise.all(targets.map((p, i) => store.write(p, enc(`note ${i}`))));
        expect(paths(await store.list())).toEqual([...targets].sort());
      });

      test('list running during writes never breaks a write and sees only complete notes', async () => {
        let writing = true;
        const listings: FileInfo[][] = [];
        const lister = (async () => {
          while (writing) listings.push(await store.list());
        })();
        try {
          // One after another, so the lister gets many chances to run while a write is in flight.
          for (let i = 0; i < 30; i++) await store.write(`busy/n${i}.md`, filled(0x30 + (i % 10), 8192));
        } finally {
          writing = false;
          await lister;
        }
        expect(await store.list()).toHaveLength(30);
        for (const listing of listings) {
          for (const info of listing) expect(info.size).toBe(8192);
        }
      });
    });

    checkSkips();
  });
}
