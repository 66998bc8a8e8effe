/**
 * A key with notes:write but not notes:read, at the scoped view (core/auth/scoped.ts) and through
 * the agent's tools over it: every write answers the path alone (the checksum only for bytes the
 * key gave), a 412 has no checksum, a targeted PATCH needs notes:read, restores need it too.
 */
import { describe, expect, it } from 'vitest';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { historyTools } from '../../../core/agent/history-tools.ts';
import { noteTools } from '../../../core/agent/tools.ts';
import { scopedNotes } from '../../../core/auth/scoped.ts';
import { createCore } from '../../../core/create-core.ts';
import type { Principal } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';

const NOTE = '---\nstatus: fmsecret\n---\n# Titlesecret\n\nBodysecret [[other]]\n';
const SECRETS = ['fmsecret', 'Titlesecret', 'Bodysecret', 'Othersecret', 'Work/other.md'];

async function setup() {
  let t = 1_700_000_000_000;
  const core = createCore({
    store: memoryNoteStore({
      files: { 'Work/n.md': NOTE, 'Work/other.md': '# Othersecret\n\n[[n]] [[new]]\n' },
    }),
    clock: { now: () => t++ },
    logger: silentLogger,
    history: memoryHistoryStore(),
  });
  await core.load();
  const p: Principal = {
    id: 'w',
    method: 'api-key',
    scope: { capabilities: ['notes:write'], folders: ['Work/'] },
  };
  return { notes: core.notes, view: scopedNotes(core.notes, p) };
}

function clean(what: string, x: unknown, sums: string[] = []) {
  const text = JSON.stringify(x);
  for (const s of [...SECRETS, ...sums]) expect(text.includes(s), `${what} holds ${s}: ${text}`).toBe(false);
}

describe('a write-only view', () => {
  it('answers each write with the path alone, the checksum only for bytes it gave', async () => {
    const { notes, view } = await setup();
    const sum = () => notes.checksumOf('Work/n.md')!;
    const before = sum();
    const same = await view.move('Work/n.md', 'Work/n.md');
    expect(same.note).toMatchObject({ path: 'Work/n.md', withheld: true, checksum: '' });
    clean('move to itself', same, [before]);
    clean(
      'empty append',
      await view.patch('Work/n.md', { operation: 'append', target: { type: 'document' }, content: '' }),
      [before],
    );
    const appended = await view.patch('Work/n.md', {
      operation: 'append',
      target: { type: 'document' },
      content: 'more',
    });
    clean('append', appended, [sum()]);
    const kept = await view.update('Work/n.md', { content: 'body only' });
    expect(kept.checksum).toBe('');
    clean('update keeping the block', kept, [sum()]);
    const whole = await view.update('Work/n.md', { content: '---\na: 1\n---\nall mine' });
    expect(whole.checksum).toBe(sum());
    const made = await view.create('Work/new.md', 'fresh');
    expect(made.checksum).toBe(notes.checksumOf('Work/new.md'));
    clean('create', made);
    const moved = await view.move('Work/new.md', 'Work/new2.md', { updateLinks: true });
    expect(moved.rewritten).toEqual([]);
    clean('move', moved, [notes.checksumOf('Work/new2.md')!]);
  });

  it('a 412 has no checksum; a targeted PATCH and the restores need notes:read', async () => {
    const { notes, view } = await setup();
    const cur = notes.checksumOf('Work/n.md')!;
    for (const write of [
      () => view.update('Work/n.md', { content: 'x' }, '"nope"'),
      () =>
        view.patch('Work/n.md', { operation: 'append', target: { type: 'document' }, content: 'x' }, 'nope'),
      () => view.move('Work/n.md', 'Work/m.md', { ifMatch: 'nope' }),
      () => view.remove('Work/n.md', 'nope'),
    ]) {
      const err = await write().catch((e) => e);
      expect(err.code).toBe('PRECONDITION_FAILED');
      clean('412', { message: err.message, details: err.details }, [cur]);
    }
    await expect(
      view.patch('Work/n.md', {
        operation: 'append',
        target: { type: 'heading', path: ['Titlesecret'] },
        content: 'x',
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', details: { capability: 'notes:read' } });
    await notes.update('Work/n.md', { content: 'v2' });
    const [version] = notes.history!.list('Work/n.md');
    await expect(
      Promise.resolve().then(() => view.history!.get('Work/n.md', version!.id)),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await notes.remove('Work/other.md');
    const [item] = notes.history!.listTrash();
    await expect(view.history!.trashed(item!.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it("the agent's tools over it: create_note tells nothing; append and restores are refused", async () => {
    const { notes, view } = await setup();
    const tools = new Map([...noteTools(view), ...historyTools(view)].map((t) => [t.name, t]));
    const ctx = {} as never;
    const made = await tools.get('create_note')!.run({ path: 'Work/new', content: 'fresh' }, ctx);
    expect(made.output).toEqual({ created: 'Work/new.md', title: 'new' });
    clean('create_note', made);
    expect(await notes.get('Work/new.md')).toMatchObject({ content: 'fresh' });
    await expect(
      tools.get('append_to_note')!.run({ path: 'Work/n.md', text: 'x' }, ctx),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await notes.remove('Work/other.md');
    const [item] = notes.history!.listTrash();
    await expect(tools.get('restore_from_trash')!.run({ id: item!.id }, ctx)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});
