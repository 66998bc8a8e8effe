import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { memoryHistoryStore } from '../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createHistory } from '../../core/history/history.ts';
import { createAgent } from '../../core/index.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { VAULT, vaultNotes } from '../helpers/agent-fixtures.ts';
import { requester } from '../helpers/app.ts';
import { type Answer, type Calls, DIALECTS, type Recorded, startFakeLlm } from '../helpers/fake-llm.ts';
import { capturingLogger } from '../helpers/logger.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A note service with a history over memory stores, indexed. */
async function historyNotes() {
  const clock = { now: () => Date.now() };
  const history = createHistory({ store: memoryHistoryStore(), clock });
  await history.load();
  const notes = createNoteService({
    store: memoryNoteStore({ files: { ...VAULT } }),
    clock,
    state: memoryStateStore(),
    history,
  });
  await notes.load();
  return { notes, clock, history };
}

describe.each(DIALECTS)('the agent keeps and restores history through $name tools', (d) => {
  /** An app whose agent plays `script` per chat: each entry answers one model call. */
  async function setup(withHistory = true) {
    const { notes, clock } = withHistory ? await historyNotes() : await vaultNotes();
    let script: ((req: Recorded) => { calls?: Calls; text?: string })[] = [];
    const fake = await startFakeLlm(d.name, (req): Answer => {
      if (req.method === 'GET') return { body: d.models };
      const step = script.shift();
      if (!step) throw new Error('the script ran out');
      return d.answer(step(req));
    });
    cleanups.push(fake.close);
    const { logger } = capturingLogger();
    const provider = d.make({ model: 'm1', baseURL: fake.url, apiKey: 'sk-test-0123456789abcdef' });
    // Key names as the auth service knows them: the tools name authors by device, never by id.
    const keyNames = (id: string) => (id === 'alice' ? 'alice-phone' : undefined);
    const agent = createAgent({ notes, clock, logger, provider, keyNames });
    const send = requester(createApp({ notes, version: 't', clock, logger, agent }));
    const chat = async (message: string, steps: typeof script) => {
      script = steps;
      const res = await send('POST', '/api/v1/agent/chat', { body: { message, channel: 'web' } });
      if (res.status !== 200) throw new Error(res.text);
      expect(script).toEqual([]);
      return res.json.data;
    };
    return { notes, fake, chat };
  }

  it('offers the four tools only when a history is kept', async () => {
    const without = await setup(false);
    await without.chat('hi', [() => ({ text: 'hello' })]);
    expect(d.toolNames(without.fake.calls()[0]!)).not.toContain('list_versions');
    const t = await setup();
    await t.chat('hi', [() => ({ text: 'hello' })]);
    expect(d.toolNames(t.fake.calls()[0]!)).toEqual(
      expect.arrayContaining(['list_versions', 'restore_version', 'list_trash', 'restore_from_trash']),
    );
  });

  it('its writes are versions by "agent"; it lists versions, restores one, and restores from the trash', async () => {
    const { notes, chat } = await setup();
    const before = (await notes.get('inbox.md')).content;
    await chat('add an idea to my inbox', [
      () => ({ calls: [{ name: 'append_to_note', args: { path: 'Inbox', text: '- second idea' } }] }),
      () => ({ text: 'Done.' }),
    ]);
    expect(notes.history!.list('inbox.md').map((v) => `${v.change}:${v.by}`)).toEqual([
      'patch:agent',
      'baseline:outside',
    ]);

    let listed: any;
    const undo = await chat('undo that', [
      () => ({ calls: [{ name: 'list_versions', args: { path: 'inbox.md' } }] }),
      (req) => {
        listed = d.results(req).at(-1)?.output;
        const oldest = listed.versions.at(-1);
        return { calls: [{ name: 'restore_version', args: { path: 'inbox.md', id: oldest.id } }] };
      },
      () => ({ text: 'Restored.' }),
    ]);
    expect(listed).toMatchObject({ path: 'inbox.md', total: 2 });
    expect(listed.versions.map((v: any) => `${v.change}:${v.author}`)).toEqual([
      'patch:agent',
      'baseline:another program',
    ]);
    expect(listed.versions[0].at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(undo.actions.map((a: any) => a.type)).toEqual(['list_versions', 'restore_version']);
    expect((await notes.get('inbox.md')).content).toBe(before);
    expect(notes.history!.list('inbox.md')[0]).toMatchObject({ change: 'restore', by: 'agent' });

    await notes.withActor('key:alice', () => notes.remove('garden/compost.md'));
    let trash: any;
    const back = await chat('bring back the compost note', [
      () => ({ calls: [{ name: 'list_trash', args: {} }] }),
      (req) => {
        trash = d.results(req).at(-1)?.output;
        return { calls: [{ name: 'restore_from_trash', args: { id: trash.items[0].id } }] };
      },
      () => ({ text: 'It is back.' }),
    ]);
    expect(trash.items).toEqual([
      expect.objectContaining({ path: 'garden/compost.md', kind: 'note', author: 'alice-phone' }),
    ]);
    expect(JSON.stringify(trash)).not.toMatch(/key:|"by"/);
    expect(back.actions.at(-1)).toMatchObject({ type: 'restore_from_trash', path: 'garden/compost.md' });
    expect((await notes.get('garden/compost.md')).content).toBe(VAULT['garden/compost.md']);
    expect(notes.history!.listTrash()).toEqual([]);
    expect(notes.history!.list('garden/compost.md')[0]).toMatchObject({ change: 'restore', by: 'agent' });
  });

  it('a version of a deleted note can be listed and restored by its path; an unknown id is a tool error', async () => {
    const { notes, chat } = await setup();
    await notes.remove('work/standup.md');
    let errorSeen: any;
    await chat('restore standup', [
      () => ({ calls: [{ name: 'restore_version', args: { path: 'work/standup.md', id: 'nope' } }] }),
      (req) => {
        errorSeen = d.results(req).at(-1)?.output;
        const id = notes.history!.list('work/standup.md').at(-1)!.id;
        return { calls: [{ name: 'restore_version', args: { path: 'work/standup', id } }] };
      },
      () => ({ text: 'ok' }),
    ]);
    expect(JSON.stringify(errorSeen)).toMatch(/nope/);
    expect((await notes.get('work/standup.md')).content).toBe(VAULT['work/standup.md']);
  });
});
