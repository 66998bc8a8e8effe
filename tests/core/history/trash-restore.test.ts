/** restoreFromTrash (core/history/trash.ts): the one trash restore of the REST route, MCP and the agent. */
import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { scopedFiles, scopedNotes } from '../../../core/auth/scoped.ts';
import { createCore } from '../../../core/create-core.ts';
import { DomainError } from '../../../core/errors.ts';
import { createFileService } from '../../../core/files/service.ts';
import { restoreFromTrash } from '../../../core/history/trash.ts';
import type { Principal } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';

async function setup(files: Record<string, string>) {
  let t = 1_700_000_000_000;
  const clock = { now: () => t++ };
  const core = createCore({
    store: memoryNoteStore({ files }),
    clock,
    logger: silentLogger,
    history: memoryHistoryStore(),
  });
  await core.load();
  const fileService = createFileService({ store: memoryFileStore({}), clock, history: core.history! });
  return { notes: core.notes, files: fileService, h: core.history! };
}

const body = (b: Uint8Array) => new Blob([b as Uint8Array<ArrayBuffer>]).stream();

describe('restoreFromTrash', () => {
  it('restores a note beside a taken path, as its actor, and takes it out of the trash', async () => {
    const { notes, h } = await setup({ 'a.md': 'one' });
    await notes.remove('a.md');
    await notes.create('a.md', 'two');
    const [item] = h.listTrash();
    const r = await restoreFromTrash(notes, item!.id, { by: 'key:k' });
    expect(r).toMatchObject({ path: 'a (restored).md', from: 'a.md' });
    expect(r.note?.content).toBe('one');
    expect(h.list('a (restored).md')[0]).toMatchObject({ by: 'key:k', change: 'restore' });
    expect(h.listTrash()).toEqual([]);
  });

  it('a file: restored through the file service as its actor; refused without one (NOT_FOUND or the caller`s error)', async () => {
    const { notes, files, h } = await setup({});
    await files.put('p.png', body(new Uint8Array([1, 2])), { by: 'key:k' });
    await files.remove('p.png', undefined, 'key:k');
    const [item] = h.listTrash();
    await expect(restoreFromTrash(notes, item!.id, { by: 'mcp' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const noFiles = new DomainError('VALIDATION_ERROR', 'notes only');
    await expect(restoreFromTrash(notes, item!.id, { by: 'mcp', noFiles })).rejects.toBe(noFiles);
    expect(h.listTrash()).toHaveLength(1);
    const r = await restoreFromTrash(notes, item!.id, { by: 'key:j', files });
    expect(r).toEqual({ path: 'p.png', from: 'p.png' });
    expect(h.list('p.png')[0]).toMatchObject({ by: 'key:j', change: 'restore' });
    expect(h.listTrash()).toEqual([]);
  });

  it('through a scoped view: an item outside its folders is not found and stays in the trash', async () => {
    const { notes, files, h } = await setup({ 'Work/a.md': 'a', 'Home/b.md': 'b' });
    await notes.remove('Work/a.md');
    await notes.remove('Home/b.md');
    const p: Principal = {
      id: 'w',
      method: 'api-key',
      scope: { capabilities: ['notes:read', 'notes:write'], folders: ['Work/'] },
    };
    const view = scopedNotes(notes, p);
    const viewFiles = scopedFiles(files, p);
    const home = h.listTrash().find((i) => i.path === 'Home/b.md')!;
    const work = h.listTrash().find((i) => i.path === 'Work/a.md')!;
    await expect(restoreFromTrash(view, home.id, { by: 'key:w', files: viewFiles })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await restoreFromTrash(view, work.id, { by: 'key:w', files: viewFiles })).path).toBe('Work/a.md');
    expect(h.listTrash().map((i) => i.path)).toEqual(['Home/b.md']);
  });
});
