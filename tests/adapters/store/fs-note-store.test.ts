import { execFileSync, spawn } from 'node:child_process';
import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { SYNC_READ_MAX, TEMP_PREFIX } from '../../../adapters/store/fs-safe.ts';
import { DomainError } from '../../../core/errors.ts';
import type { NoteStore, StoreChange } from '../../../core/ports.ts';
import { until } from '../../helpers/wait.ts';

const enc = (text: string) => new TextEncoder().encode(text);

let dirs: string[] = [];
const tempDir = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

/** Every entry under `dir`, recursively, with file contents: a before/after fingerprint. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const abs = join(e.parentPath, e.name);
    out[abs] = e.isFile() ? await readFile(abs, 'latin1') : e.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

/** Names of the store's temporary files anywhere under `dir`. */
async function tempFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((p) => p.split('/').some((s) => s.startsWith(TEMP_PREFIX)));
}

/** Expects `p` to reject with a DomainError carrying `code`. */
async function expectDomainError(p: Promise<unknown>, code: string) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `expected a DomainError ${code}`).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe(code);
}

describe('fsNoteStore: what it lists', () => {
  it('skips dot-folders and dot-files at any depth', async () => {
    const vault = await tempDir('quire-fs-');
    for (const p of ['.obsidian/workspace.md', '.git/HEAD.md', 'sub/.trash/old.md', 'sub/.draft.md']) {
      await mkdir(join(vault, p, '..'), { recursive: true });
      await writeFile(join(vault, p), 'hidden');
    }
    await writeFile(join(vault, 'visible.md'), 'v');
    await writeFile(join(vault, 'sub', 'note.md'), 'n');
    const store = fsNoteStore({ dir: vault, watch: false });
    expect((await store.list()).map((i) => i.path).sort()).toEqual(['sub/note.md', 'visible.md']);
    expect(await store.listFolders()).toEqual(['sub']);
  });

  it('does not follow a symlink inside the vault: its target is listed once, under its real path', async () => {
    const vault = await tempDir('quire-fs-');
    await writeFile(join(vault, 'real.md'), 'real bytes');
    await symlink(join(vault, 'real.md'), join(vault, 'alias.md'));
    const store = fsNoteStore({ dir: vault, watch: false });
    expect((await store.list()).map((i) => i.path).sort()).toEqual(['real.md']);
    await expect(store.read('alias.md')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(store.readWithInfo!('alias.md')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(store.write('alias.md', enc('x'))).rejects.toMatchObject({ code: 'INVALID_PATH' });
    expect(await store.read('real.md')).toEqual(enc('real bytes'));
  });

  it('probes whether the vault compares names without case (not on this file system)', async () => {
    const vault = await tempDir('quire-fs-');
    const store = fsNoteStore({ dir: vault, watch: false });
    expect(store.foldsCase).toBe(false);
    // The probe leaves nothing behind.
    expect(await readdir(vault)).toEqual([]);
  });
});

describe('fsNoteStore.readWithInfo (one path check and one open per note read)', () => {
  it('gives the bytes with the same size and mtime as stat, and null for what is not a note file', async () => {
    const vault = await tempDir('quire-fs-');
    await mkdir(join(vault, 'sub'));
    await writeFile(join(vault, 'sub', 'n.md'), 'héllo ✓');
    await writeFile(join(vault, 'empty.md'), '');
    await symlink(join(vault, 'sub', 'n.md'), join(vault, 'alias.md'));
    const store = fsNoteStore({ dir: vault, watch: false });
    const got = await store.readWithInfo!('sub/n.md');
    expect(got!.bytes).toEqual(enc('héllo ✓'));
    expect(got!.info).toEqual(await store.stat('sub/n.md'));
    expect(got!.info.size).toBe(got!.bytes.length);
    expect((await store.readWithInfo!('empty.md'))!.bytes.length).toBe(0);
    await expect(store.readWithInfo!('alias.md')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    expect(await store.readWithInfo!('missing.md')).toBeNull();
    expect(await store.readWithInfo!('sub')).toBeNull();
    expect(await store.readWithInfo!('sub/n.md/x.md')).toBeNull();
    // A symlink loop is no note; a FIFO neither, and opening it does not wait for a writer.
    await symlink(join(vault, 'loop.md'), join(vault, 'loop.md'));
    expect(await store.readWithInfo!('loop.md')).toBeNull();
    execFileSync('mkfifo', [join(vault, 'pipe.md')]);
    expect(await store.readWithInfo!('pipe.md')).toBeNull();
  });
});

describe('fsNoteStore: a read while another process replaces the file', () => {
  // /proc names a descriptor whose file was replaced by a rename after the open "<path> (deleted)":
  // that is the version the read opened, not a symlink, and the read must give it.
  it('gives one whole version every time, never INVALID_PATH', async () => {
    const vault = await tempDir('quire-fs-');
    await writeFile(join(vault, 'n.md'), 'v0');
    const store = fsNoteStore({ dir: vault, watch: false });
    // A writer in another process, replacing the note by rename as every editor does.
    const script = `let i = 0; const fs = require('node:fs'); for (;;) { fs.writeFileSync('${vault}/.w', 'v' + ++i); fs.renameSync('${vault}/.w', '${vault}/n.md'); }`;
    const writer = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 3000 && seen.size < 200; i++) {
        const [one] = await store.readMany!(['n.md']);
        const two = await store.readWithInfo!('n.md');
        for (const bytes of [one, two?.bytes]) {
          expect(new TextDecoder().decode(bytes!)).toMatch(/^v\d+$/);
          seen.add(new TextDecoder().decode(bytes!));
        }
      }
      // The writer did replace the file while it was read.
      expect(seen.size).toBeGreaterThan(10);
    } finally {
      writer.kill('SIGKILL');
    }
  }, 30_000);
});

describe('fsNoteStore.readMany (a load batch: small files read synchronously)', () => {
  it('gives what read gives for each path, in order: small, large, empty, missing, not a file', async () => {
    const vault = await tempDir('quire-fs-');
    await mkdir(join(vault, 'sub'));
    await writeFile(join(vault, 'sub', 'n.md'), 'héllo ✓');
    await writeFile(join(vault, 'empty.md'), '');
    // Over SYNC_READ_MAX: read the usual way.
    await writeFile(join(vault, 'big.md'), 'x'.repeat(SYNC_READ_MAX + 10));
    await symlink(join(vault, 'sub', 'n.md'), join(vault, 'alias.md'));
    await symlink(join(vault, 'loop.md'), join(vault, 'loop.md'));
    execFileSync('mkfifo', [join(vault, 'pipe.md')]);
    const store = fsNoteStore({ dir: vault, watch: false });
    const paths = [
      'sub/n.md',
      'empty.md',
      'big.md',
      'missing.md',
      'sub',
      'sub/n.md/x.md',
      'loop.md',
      'pipe.md',
    ];
    const many = await store.readMany!(paths);
    expect(many.map((b) => b?.length ?? null)).toEqual([
      10,
      0,
      SYNC_READ_MAX + 10,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(many[0]).toEqual(enc('héllo ✓'));
    // A symlink inside the vault is refused, as read refuses it.
    await expect(store.readMany!(['alias.md'])).rejects.toMatchObject({ code: 'INVALID_PATH' });
    // What read answers, where read answers: it waits on a FIFO and throws ELOOP on a symlink loop
    // (never listed by a walk); readMany, like readWithInfo, gives null for both.
    for (const [i, p] of paths.entries())
      if (p !== 'pipe.md' && p !== 'loop.md') expect(many[i], p).toEqual(await store.read(p));
  });

  it('refuses a symlink that leaves the vault, as read does, and reads nothing outside', async () => {
    const vault = await tempDir('quire-fs-vault-');
    const outside = await tempDir('quire-fs-outside-');
    await writeFile(join(outside, 'secret.md'), 'TOP SECRET');
    await symlink(join(outside, 'secret.md'), join(vault, 'leak.md'));
    await symlink(outside, join(vault, 'ext'));
    await writeFile(join(vault, 'inside.md'), 'inside');
    const store = fsNoteStore({ dir: vault, watch: false });
    await expectDomainError(store.readMany!(['inside.md', 'leak.md']), 'INVALID_PATH');
    await expectDomainError(store.readMany!(['ext/secret.md']), 'INVALID_PATH');
    await expectDomainError(store.read('leak.md'), 'INVALID_PATH');
    expect(await store.readMany!(['inside.md'])).toEqual([enc('inside')]);
  });
});

describe('fsNoteStore: symlinks that leave the vault', () => {
  let vault: string;
  let outside: string;
  let store: NoteStore;
  let before: Record<string, string>;

  beforeEach(async () => {
    vault = await tempDir('quire-fs-vault-');
    outside = await tempDir('quire-fs-outside-');
    await writeFile(join(outside, 'secret.md'), 'TOP SECRET');
    await symlink(join(outside, 'secret.md'), join(vault, 'leak.md'));
    await symlink(outside, join(vault, 'ext'));
    await symlink(join(outside, 'not-yet.md'), join(vault, 'dangling.md'));
    await writeFile(join(vault, 'inside.md'), 'inside');
    store = fsNoteStore({ dir: vault, watch: false });
    before = await snapshot(outside);
  });

  it('are not listed, as files or as folders', async () => {
    expect((await store.list()).map((i) => i.path)).toEqual(['inside.md']);
    expect(await store.listFolders()).toEqual([]);
    expect(await snapshot(outside)).toEqual(before);
  });

  it('a symlinked file: read, stat, write, remove and move never reach the outside file', async () => {
    await expectDomainError(store.read('leak.md'), 'INVALID_PATH');
    await expectDomainError(store.stat('leak.md'), 'INVALID_PATH');
    await expectDomainError(store.readWithInfo!('leak.md'), 'INVALID_PATH');
    await expectDomainError(store.readWithInfo!('ext/secret.md'), 'INVALID_PATH');
    await expectDomainError(store.write('leak.md', enc('overwritten')), 'INVALID_PATH');
    await expectDomainError(store.remove('leak.md'), 'INVALID_PATH');
    await expectDomainError(store.move('leak.md', 'stolen.md'), 'INVALID_PATH');
    expect(await readFile(join(outside, 'secret.md'), 'utf8')).toBe('TOP SECRET');
    expect(await snapshot(outside)).toEqual(before);
    expect(await store.read('stolen.md')).toBeNull();
  });

  it('a symlinked folder: writes and moves under it are refused and nothing is created outside', async () => {
    await expectDomainError(store.write('ext/new.md', enc('x')), 'INVALID_PATH');
    await expectDomainError(store.write('ext/deeper/new.md', enc('x')), 'INVALID_PATH');
    await expectDomainError(store.write('ext/secret.md', enc('x')), 'INVALID_PATH');
    await expectDomainError(store.move('inside.md', 'ext/moved.md'), 'INVALID_PATH');
    await expectDomainError(store.read('ext/secret.md'), 'INVALID_PATH');
    expect(await snapshot(outside)).toEqual(before);
    expect(await store.read('inside.md')).toEqual(enc('inside'));
  });

  it('a dangling symlink to outside: a write replaces the link and creates nothing outside', async () => {
    const outcome = await store.write('dangling.md', enc('now a real note')).then(
      () => 'written',
      (e: unknown) => e,
    );
    expect(await snapshot(outside)).toEqual(before);
    // Either answer is safe; a write that succeeds must have landed inside the vault.
    if (outcome === 'written') expect(await store.read('dangling.md')).toEqual(enc('now a real note'));
    else expect(outcome).toMatchObject({ code: 'INVALID_PATH' });
  });
});

describe('fsNoteStore: temporary files and moves', () => {
  it('removes leftover temporary files when listing, without listing them', async () => {
    const vault = await tempDir('quire-fs-');
    await mkdir(join(vault, 'sub'));
    await writeFile(join(vault, `${TEMP_PREFIX}crashed1`), 'half a note');
    await writeFile(join(vault, 'sub', `${TEMP_PREFIX}crashed2.md`), 'half a note');
    await writeFile(join(vault, 'sub', 'kept.md'), 'kept');
    const store = fsNoteStore({ dir: vault, watch: false });
    expect((await store.list()).map((i) => i.path)).toEqual(['sub/kept.md']);
    expect(await tempFiles(vault)).toEqual([]);
    expect(await readFile(join(vault, 'sub', 'kept.md'), 'utf8')).toBe('kept');
  });

  it('writes leave no temporary file behind, including a write that fails', async () => {
    const vault = await tempDir('quire-fs-');
    const store = fsNoteStore({ dir: vault, watch: false });
    for (let i = 0; i < 5; i++) await store.write('a.md', enc(`v${i}`));
    await Promise.all([store.write('x/y/z.md', enc('z')), store.write('x/y/w.md', enc('w'))]);
    await store.write('folder.md/inner.md', enc('in'));
    await expect(store.write('folder.md', enc('cannot replace a folder'))).rejects.toThrow();
    await expectDomainError(store.write('a.md/under-a-file.md', enc('x')), 'INVALID_PATH');
    expect(await tempFiles(vault)).toEqual([]);
    expect(await readFile(join(vault, 'a.md'), 'utf8')).toBe('v4');
  });

  it('finishes a move a crash cut between link and unlink, and leaves everything else alone', async () => {
    const vault = await tempDir('quire-fs-');
    await mkdir(join(vault, 'new'));
    // The crash state: the target is linked, the source not yet removed, the journal still there.
    await writeFile(join(vault, 'old.md'), 'moved note');
    await link(join(vault, 'old.md'), join(vault, 'new', 'moved.md'));
    await writeFile(join(vault, '.quire-move.json'), JSON.stringify({ from: 'old.md', to: 'new/moved.md' }));
    await writeFile(join(vault, 'other.md'), 'other');
    const store = fsNoteStore({ dir: vault, watch: false });
    expect((await store.list()).map((i) => i.path).sort()).toEqual(['new/moved.md', 'other.md']);
    expect(await readFile(join(vault, 'new', 'moved.md'), 'utf8')).toBe('moved note');
    expect(await readdir(vault)).not.toContain('.quire-move.json');
    // A journal whose link never happened, or that names two different files: nothing is removed.
    await writeFile(
      join(vault, '.quire-move.json'),
      JSON.stringify({ from: 'other.md', to: 'new/moved.md' }),
    );
    fsNoteStore({ dir: vault, watch: false });
    expect((await readdir(vault)).sort()).toEqual(['new', 'other.md']);
    // A normal move leaves no journal behind.
    await store.move('other.md', 'new/other.md');
    expect((await readdir(vault)).sort()).toEqual(['new']);
  });
});

describe('fsNoteStore: watcher', () => {
  let vault: string;
  let changes: StoreChange[];
  let stop: (() => Promise<void>) | undefined;

  const seen = (path: string, kind: StoreChange['kind'], from = 0) =>
    changes.slice(from).some((c) => c.path === path && c.kind === kind);

  beforeEach(async () => {
    vault = await tempDir('quire-watch-');
    const store = fsNoteStore({ dir: vault, debounceMs: 50 });
    changes = [];
    expect(store.watch).toBeTypeOf('function');
    stop = await store.watch!((batch) => changes.push(...batch));
    // Once watch() resolves, the very first change must be reported.
    await writeFile(join(vault, 'probe.md'), 'probe');
    await until('the watcher to report a probe note', () => seen('probe.md', 'changed'));
  });
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('reports an external create, modify and delete of a .md file within 2 seconds', async () => {
    let mark = changes.length;
    await writeFile(join(vault, 'outside-edit.md'), 'created');
    await until('create reported', () => seen('outside-edit.md', 'changed', mark));

    mark = changes.length;
    await writeFile(join(vault, 'outside-edit.md'), 'modified, and longer');
    await until('modify reported', () => seen('outside-edit.md', 'changed', mark));

    mark = changes.length;
    await unlink(join(vault, 'outside-edit.md'));
    await until('delete reported', () => seen('outside-edit.md', 'removed', mark));
  });

  it('reports a folder removal', async () => {
    await mkdir(join(vault, 'folder', 'sub'), { recursive: true });
    await writeFile(join(vault, 'folder', 'sub', 'a.md'), 'a');
    await until('nested create reported', () => seen('folder/sub/a.md', 'changed'));
    const mark = changes.length;
    await rm(join(vault, 'folder'), { recursive: true });
    await until('folder removal reported', () => seen('folder', 'folder-removed', mark));
  });

  it('reports the notes of a folder moved in whole, and watches inside it', async () => {
    const outside = await tempDir('quire-watch-outside-');
    await mkdir(join(outside, 'batch', 'deep'), { recursive: true });
    await writeFile(join(outside, 'batch', 'one.md'), '1');
    await writeFile(join(outside, 'batch', 'deep', 'two.md'), '2');
    await rename(join(outside, 'batch'), join(vault, 'batch'));
    await until(
      'the moved-in notes reported',
      () => seen('batch/one.md', 'changed') && seen('batch/deep/two.md', 'changed'),
    );
    const mark = changes.length;
    await writeFile(join(vault, 'batch', 'deep', 'three.md'), '3');
    await until('a note written inside reported', () => seen('batch/deep/three.md', 'changed', mark));
    await rename(join(vault, 'batch'), join(vault, 'renamed'));
    await until(
      'the rename reported as a removal and new notes',
      () => seen('batch', 'folder-removed', mark) && seen('renamed/deep/three.md', 'changed', mark),
    );
  });

  it('ignores dot-folders, dot-files and its own temporary files; reports other files (attachments)', async () => {
    const mark = changes.length;
    await mkdir(join(vault, '.obsidian'));
    await mkdir(join(vault, '.git'));
    await writeFile(join(vault, '.obsidian', 'workspace.md'), 'hidden');
    await writeFile(join(vault, '.git', 'COMMIT.md'), 'hidden');
    await writeFile(join(vault, '.draft.md'), 'hidden');
    await writeFile(join(vault, 'image.png'), 'not a note');
    await writeFile(join(vault, `${TEMP_PREFIX}leftover.md`), 'hidden');
    // Sentinels written after the ignored files, one of them in a new folder like the dot-folders.
    await mkdir(join(vault, 'visible'));
    await writeFile(join(vault, 'visible', 'after.md'), 'shown');
    await writeFile(join(vault, 'after.md'), 'shown');
    await until(
      'sentinels reported',
      () => seen('visible/after.md', 'changed') && seen('after.md', 'changed'),
    );
    await writeFile(join(vault, '.obsidian', 'workspace.md'), 'hidden, modified');
    await writeFile(join(vault, 'after.md'), 'shown, modified');
    await until('second sentinel reported', () => changes.filter((c) => c.path === 'after.md').length >= 2);
    const reported = changes.slice(mark).map((c) => c.path);
    expect(reported.filter((p) => p.split('/').some((s) => s.startsWith('.')))).toEqual([]);
    // Attachments are reported too: links and embeds to them re-resolve.
    expect(reported).toContain('image.png');
  });
});
