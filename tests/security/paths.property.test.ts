import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { isDomainError } from '../../core/errors.ts';
import { createNoteService, type NoteService } from '../../core/notes/service.ts';
import { validateFolderPath, validateNotePath } from '../../core/paths.ts';
import { tempDir } from '../helpers/app.ts';
import { hostilePath, noteText, SEED } from './arbitraries.ts';

/** The validator either refuses with INVALID_PATH or returns a path that stays in the vault. */
function staysInside(validate: (p: unknown) => string, input: unknown): void {
  let out: string;
  try {
    out = validate(input);
  } catch (err) {
    expect(isDomainError(err) && err.code === 'INVALID_PATH').toBe(true);
    return;
  }
  if (out === '') return; // the vault root (folders only)
  expect(out.startsWith('/')).toBe(false);
  expect(out.split('/')).not.toContain('..');
  expect(out).not.toMatch(/[\\\u0000-\u001f\u007f]/);
  expect(posix.normalize(out)).toBe(out);
  expect(posix.join('/vault', out).startsWith('/vault/')).toBe(true);
}

describe('the path validators (property)', () => {
  it('never let a note path leave the vault', () => {
    fc.assert(
      fc.property(fc.oneof(hostilePath, fc.anything()), (p) => staysInside(validateNotePath, p)),
      { seed: SEED, numRuns: 3_000 },
    );
  });

  it('never let a folder path leave the vault', () => {
    fc.assert(
      fc.property(fc.oneof(hostilePath, fc.anything()), (p) => staysInside(validateFolderPath, p)),
      { seed: SEED, numRuns: 3_000 },
    );
  });
});

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() || e.isSymbolicLink()) out.push(relative(dir, join(e.parentPath, e.name)));
  }
  return out.sort();
}

describe('the note service on the filesystem (property)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let vault: string;
  let notes: NoteService;
  let outsideBefore: string[];

  beforeAll(async () => {
    tmp = await tempDir('quire-fuzz-paths-');
    vault = join(tmp.dir, 'box', 'vault');
    await mkdir(join(tmp.dir, 'outside'), { recursive: true });
    await mkdir(vault, { recursive: true });
    await writeFile(join(tmp.dir, 'sentinel.md'), 'SENTINEL-OUTSIDE');
    await writeFile(join(tmp.dir, 'box', 'beside.md'), 'SENTINEL-BESIDE');
    // A symlinked folder inside the vault that leads out of it.
    await symlink(join(tmp.dir, 'outside'), join(vault, 'link'));
    notes = createNoteService({ store: fsNoteStore({ dir: vault }), clock: { now: Date.now } });
    await notes.load();
    outsideBefore = (await filesUnder(tmp.dir)).filter((f) => !f.startsWith(`box${'/'}vault/`));
  });
  afterAll(() => tmp.cleanup());

  it('creates, updates, moves, reads and deletes with hostile paths and content; nothing leaves the vault', async () => {
    const op = fc.tuple(
      fc.constantFrom('create', 'update', 'move', 'get', 'remove', 'tree'),
      hostilePath,
      hostilePath,
      noteText,
    );
    await fc.assert(
      fc.asyncProperty(op, async ([kind, a, b, text]) => {
        try {
          if (kind === 'create') await notes.create(a, text);
          else if (kind === 'update') await notes.update(a, { content: text });
          else if (kind === 'move') await notes.move(a, b, { updateLinks: true });
          else if (kind === 'get') await notes.get(a);
          else if (kind === 'remove') await notes.remove(a);
          else notes.tree(a);
        } catch (err) {
          // Refusals are DomainErrors; anything else is a bug.
          if (!isDomainError(err)) throw err;
        }
      }),
      { seed: SEED, numRuns: 400 },
    );
    // Some writes succeeded, so the run exercised the store.
    const inVault = await filesUnder(vault);
    expect(inVault.filter((f) => f !== 'link').length).toBeGreaterThan(0);
    expect((await filesUnder(tmp.dir)).filter((f) => !f.startsWith('box/vault/'))).toEqual(outsideBefore);
    expect(await readdir(join(tmp.dir, 'outside'))).toEqual([]);
    expect(await readFile(join(tmp.dir, 'sentinel.md'), 'utf8')).toBe('SENTINEL-OUTSIDE');
    expect(await readFile(join(tmp.dir, 'box', 'beside.md'), 'utf8')).toBe('SENTINEL-BESIDE');
  }, 60_000);

  it('refuses to write through the symlink that leaves the vault', async () => {
    await expect(notes.create('link/escape.md', 'x')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    expect(await readdir(join(tmp.dir, 'outside'))).toEqual([]);
  });
});
