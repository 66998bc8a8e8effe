/**
 * One walk of the vault finds notes, attachments and folders exactly as the separate
 * listings did (note store `list` and `listFolders`, file store `list`), and a server's start (the
 * cold index, the watcher's start and what closes the gap between them) reads each folder once.
 */
import fs from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsFileStore } from '../../../adapters/store/fs-file-store.ts';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { FileInfo, Logger } from '../../../core/ports.ts';
import { startLifecycle } from '../../../deploy/shared/lifecycle.ts';
import { until } from '../../helpers/wait.ts';

let dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

/** A vault with every case the walk must get right. */
async function fixtureVault(): Promise<{ root: string; vault: string }> {
  const root = await mkdtemp(join(tmpdir(), 'quire-one-walk-'));
  dirs.push(root);
  const vault = join(root, 'vault');
  const files: Record<string, string> = {
    'top.md': '# Top\n[[deep]] ![[pic.png]]',
    'UPPER.MD': '# Upper',
    'notes/a.md': '# A\n[[b]]',
    'notes/b.md': '# B',
    'notes/deep/er/deep.md': '# Deep',
    'notes/deep/er/pic.png': 'png',
    'notes/report.pdf': 'pdf',
    'notes/readme.txt': 'text',
    'notes/no-extension': 'plain',
    'Café/naïve résumé.md': '# Unicode',
    'Café/日本語/ノート.md': '# Japanese',
    'Café/日本語/画像.jpg': 'jpg',
    'emoji 🎉/party.md': '# Party',
    '.obsidian/app.json': '{}',
    '.obsidian/workspace.md': '# not a note',
    '.trash/old.md': '# trashed',
    '.trash/old.png': 'png',
    '.git/HEAD': 'ref',
    'notes/.hidden.md': '# hidden file',
    'notes/.hidden/inside.md': '# in a hidden folder',
    'outside.md': '# outside the vault',
  };
  for (const [p, text] of Object.entries(files)) {
    const abs = p === 'outside.md' ? join(root, p) : join(vault, p);
    await mkdir(join(abs, '..'), { recursive: true });
    await writeFile(abs, text);
  }
  await mkdir(join(vault, 'empty/also-empty'), { recursive: true });
  await mkdir(join(root, 'outside-folder'), { recursive: true });
  await writeFile(join(root, 'outside-folder/far.md'), '# far');
  // Symlinks, none followed (each note and file has one path): a note and a file inside the vault,
  // one note leaving it, a folder inside, a folder leaving it, a dangling link.
  await symlink(join(vault, 'notes/a.md'), join(vault, 'link-to-a.md'));
  await symlink(join(vault, 'notes/report.pdf'), join(vault, 'link-to-report.pdf'));
  await symlink(join(root, 'outside.md'), join(vault, 'leaves.md'));
  await symlink(join(root, 'outside.md'), join(vault, 'leaves.png'));
  await symlink(join(vault, 'notes'), join(vault, 'notes-again'));
  await symlink(join(root, 'outside-folder'), join(vault, 'far-folder'));
  await symlink(join(vault, 'nothing-here.md'), join(vault, 'dangling.md'));
  return { root, vault };
}

const byPath = (list: FileInfo[]) => [...list].sort((a, b) => (a.path < b.path ? -1 : 1));

/**
 * Counts directory reads of `vault` (readdir / readdirSync / opendir, sync or not) while `fn` runs,
 * per folder: the store and watcher import them from `node:fs` and `node:fs/promises`, whose ESM
 * exports follow these objects after `syncBuiltinESMExports`.
 */
async function countingReads<T>(
  vault: string,
  fn: () => Promise<T>,
): Promise<{ result: T; reads: Map<string, number> }> {
  const reads = new Map<string, number>();
  const note = (p: unknown) => {
    const s = String(p);
    if (s === vault || s.startsWith(`${vault}/`)) reads.set(s, (reads.get(s) ?? 0) + 1);
  };
  const originals = {
    readdirSync: fs.readdirSync,
    readdir: fs.readdir,
    opendirSync: fs.opendirSync,
    opendir: fs.opendir,
    pReaddir: fs.promises.readdir,
    pOpendir: fs.promises.opendir,
  };
  const wrap = <F extends (...args: never[]) => unknown>(f: F): F =>
    ((...args: Parameters<F>) => {
      note(args[0]);
      return f(...args);
    }) as F;
  fs.readdirSync = wrap(originals.readdirSync);
  fs.readdir = wrap(originals.readdir);
  fs.opendirSync = wrap(originals.opendirSync);
  fs.opendir = wrap(originals.opendir);
  fs.promises.readdir = wrap(originals.pReaddir);
  fs.promises.opendir = wrap(originals.pOpendir);
  syncBuiltinESMExports();
  try {
    return { result: await fn(), reads };
  } finally {
    fs.readdirSync = originals.readdirSync;
    fs.readdir = originals.readdir;
    fs.opendirSync = originals.opendirSync;
    fs.opendir = originals.opendir;
    fs.promises.readdir = originals.pReaddir;
    fs.promises.opendir = originals.pOpendir;
    syncBuiltinESMExports();
  }
}

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe('one walk of the vault', () => {
  it('listAll finds the notes, attachments and folders the separate listings find', async () => {
    const { vault } = await fixtureVault();
    const notes = fsNoteStore({ dir: vault, watch: false });
    const files = fsFileStore({ dir: vault });
    const [list, folders, attachments] = await Promise.all([notes.list(), notes.listFolders(), files.list()]);
    expect(notes.listAll).toBeTypeOf('function');
    const all = await notes.listAll!();
    expect(byPath(all.notes)).toEqual(byPath(list));
    expect([...all.folders].sort()).toEqual([...folders].sort());
    expect(byPath(all.files)).toEqual(byPath(attachments));
    expect(all.watched).toBe(false);
    // And what the separate listings find is what this vault holds (guards the fixture itself).
    expect(byPath(list).map((f) => f.path)).toEqual(
      [
        'Café/naïve résumé.md',
        'Café/日本語/ノート.md',
        'UPPER.MD',
        'emoji 🎉/party.md',
        'notes/a.md',
        'notes/b.md',
        'notes/deep/er/deep.md',
        'top.md',
      ].sort(),
    );
    expect(byPath(attachments).map((f) => f.path)).toEqual(
      [
        'Café/日本語/画像.jpg',
        'notes/deep/er/pic.png',
        'notes/no-extension',
        'notes/readme.txt',
        'notes/report.pdf',
      ].sort(),
    );
    expect([...folders].sort()).toEqual(
      [
        'Café',
        'Café/日本語',
        'emoji 🎉',
        'empty',
        'empty/also-empty',
        'notes',
        'notes/deep',
        'notes/deep/er',
      ].sort(),
    );
  });

  it('a server start reads each folder of the vault once: index, attachments, folders and the watcher', async () => {
    const { vault } = await fixtureVault();
    const store = fsNoteStore({ dir: vault, debounceMs: 20 });
    const files = fsFileStore({ dir: vault });
    const notes = createNoteService({
      store,
      files,
      state: memoryStateStore(),
      clock: { now: () => Date.now() },
      logger: quiet,
    });
    const { reads, result: life } = await countingReads(vault, async () => {
      const life = startLifecycle({
        notes,
        store,
        logger: quiet,
        reconcileSeconds: 3600,
        shutdownGraceMs: 100,
        app: { feed: { close() {} }, channels: { close: async () => {} }, plugins: { stop: async () => {} } },
      });
      await life.ready;
      // The watcher is up (a new note is reported) and whatever follows its start has run.
      await writeFile(join(vault, 'notes/new.md'), '# New');
      await until('the new note', () => notes.list().items.some((n) => n.path === 'notes/new.md'), 5_000);
      await new Promise((r) => setTimeout(r, 100));
      return life;
    });
    try {
      expect(notes.list().items.map((n) => n.path)).toContain('notes/deep/er/deep.md');
      expect(
        notes
          .list()
          .items.find((n) => n.path === 'top.md')
          ?.links.map((l) => l.path),
      ).toEqual(['notes/deep/er/deep.md', 'notes/deep/er/pic.png']);
      // Every folder the walk descends into was read, once.
      const folders = [
        '',
        'Café',
        'Café/日本語',
        'emoji 🎉',
        'empty',
        'empty/also-empty',
        'notes',
        'notes/deep',
        'notes/deep/er',
      ];
      const expected = new Map(folders.map((f) => [f ? join(vault, f) : vault, 1]));
      expect(new Map([...reads].sort())).toEqual(new Map([...expected].sort()));
      // The watcher works on folders it never read itself: an edit deep down is seen.
      await writeFile(join(vault, 'notes/deep/er/deep.md'), '# Deep, edited\n[[b]]');
      await until(
        'the deep edit',
        () => notes.list().items.find((n) => n.path === 'notes/deep/er/deep.md')?.links.length === 1,
        5_000,
      );
    } finally {
      await life.stop('test');
    }
  });

  it('a change made after the walk and before the watcher starts is reported', async () => {
    const { vault } = await fixtureVault();
    const store = fsNoteStore({ dir: vault, debounceMs: 20 });
    const all = await store.listAll!({ watch: true });
    expect(all.watched).toBe(true);
    await writeFile(join(vault, 'notes/deep/er/late.md'), '# Late');
    await rm(join(vault, 'notes/b.md'));
    // Let the events arrive before anyone listens.
    await new Promise((r) => setTimeout(r, 100));
    const seen: string[] = [];
    const stop = await store.watch!((changes) => {
      for (const c of changes) seen.push(`${c.kind} ${c.path}`);
    });
    try {
      expect(stop.sinceListing).toBe(true);
      await until(
        'both changes',
        () => seen.includes('changed notes/deep/er/late.md') && seen.includes('removed notes/b.md'),
        5_000,
      );
    } finally {
      await stop();
    }
  });
});
