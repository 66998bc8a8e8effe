import { describe, expect, it } from 'vitest';
import { createAgent, localProvider } from '../../../core/index.ts';
import { vaultNotes } from '../../helpers/agent-fixtures.ts';

async function localAgent() {
  const { notes, clock } = await vaultNotes();
  return { notes, agent: createAgent({ notes, clock, provider: localProvider() }) };
}

describe('the local provider', () => {
  it('answers a question with the matching notes and cites them', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'What do my notes say about compost?' });
    expect(r.provider).toBe('local');
    expect(r.model).toBe('quire-local-rules');
    expect(r.reply).toContain('From your notes, "Compost" [1] answers "compost":');
    expect(r.reply).toContain('> Turn the compost heap every two weeks. #garden');
    expect(r.reply).toContain('[2] Garden plan (garden/plan.md)');
    expect(r.reply).toContain('Sources: [1] garden/compost.md, [2] garden/plan.md');
    expect(r.citations).toEqual([
      { path: 'garden/compost.md', title: 'Compost', heading: 'Compost' },
      { path: 'garden/plan.md', title: 'Garden plan', heading: 'Garden plan' },
    ]);
    expect(r.reply).toMatch(/no language model/);
    expect(r.actions).toEqual([{ type: 'search_notes', summary: 'Searched "compost": 2 found.' }]);
    expect(r.relatedNotes).toEqual([
      { path: 'garden/compost.md', title: 'Compost' },
      { path: 'garden/plan.md', title: 'Garden plan' },
    ]);
    expect(new Date(r.createdAt).toISOString()).toBe(r.createdAt);
  });

  it('finds the notes holding any of the words in one search when no note has every word', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'tomatoes and heap' });
    // Search itself finds the notes holding any of the words: the per-word fallback is no longer
    // needed here.
    expect(r.actions.map((a) => a.type)).toEqual(['search_notes']);
    expect(r.relatedNotes.map((n) => n.path).sort()).toEqual(['garden/compost.md', 'garden/plan.md']);
    expect(r.reply).toContain('Sources:');
  });

  it('says so, and cites nothing, when nothing matches', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'quantum chromodynamics' });
    expect(r.reply).toContain('I found nothing in your notes about "quantum chromodynamics"');
    expect(r.relatedNotes).toEqual([]);
    expect(r.actions.every((a) => a.type === 'search_notes' && a.summary.endsWith('0 found.'))).toBe(true);
  });

  it('summarizes the note given in notePath: title, headings, tags, links, an extract', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'Summarize this', notePath: 'garden/plan.md' });
    expect(r.reply).toContain('Summary of "Garden plan" (garden/plan.md)');
    expect(r.reply).toContain('Tags: #garden, #project');
    expect(r.reply).toContain('Headings: Garden plan · Beds · Budget');
    expect(r.reply).toContain('Links to: garden/compost.md');
    expect(r.reply).toContain('Linked from: work/standup.md');
    expect(r.reply).toContain('Extract: Plant tomatoes in May; compost the beds in April.');
    expect(r.actions).toEqual([
      { type: 'read_note', summary: 'Read "Garden plan".', path: 'garden/plan.md' },
    ]);
    expect(r.relatedNotes).toEqual([{ path: 'garden/plan.md', title: 'Garden plan' }]);
  });

  it('summarizes a note named in the message', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'summarize Compost' });
    expect(r.reply).toContain('Summary of "Compost" (garden/compost.md)');
  });

  it('creates a note with a title and text', async () => {
    const { agent, notes } = await localAgent();
    const r = await agent.chat({ message: 'Create a note titled Groceries with text milk, eggs' });
    expect(r.reply).toContain('Created the note "Groceries" at Groceries.md.');
    expect(r.actions).toEqual([
      { type: 'create_note', summary: 'Created "Groceries".', path: 'Groceries.md' },
    ]);
    expect((await notes.get('Groceries.md')).content).toBe('# Groceries\n\nmilk, eggs\n');
  });

  it('appends to a note found by its title', async () => {
    const { agent, notes } = await localAgent();
    const r = await agent.chat({ message: "append 'second idea' to Inbox" });
    expect(r.reply).toContain('Appended your text to "Inbox" (inbox.md).');
    expect(r.actions).toEqual([
      { type: 'append_to_note', summary: 'Appended to "Inbox".', path: 'inbox.md' },
    ]);
    expect((await notes.get('inbox.md')).content).toBe('# Inbox\n\n- first idea\nsecond idea\n');
  });

  it('reads "this" as the notePath note', async () => {
    const { agent, notes } = await localAgent();
    const r = await agent.chat({ message: 'append to this: - third idea', notePath: 'inbox.md' });
    expect(r.actions).toEqual([
      { type: 'append_to_note', summary: 'Appended to "Inbox".', path: 'inbox.md' },
    ]);
    expect((await notes.get('inbox.md')).content).toBe('# Inbox\n\n- first idea\n- third idea\n');
    const b = await agent.chat({ message: 'show backlinks of this note', notePath: 'garden/compost.md' });
    expect(b.reply).toContain('1 note links to "Compost"');
  });

  it('finds notes by tag', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'find notes tagged #garden' });
    expect(r.reply).toContain('2 notes are tagged #garden:');
    expect(r.relatedNotes.map((n) => n.path)).toEqual(['garden/compost.md', 'garden/plan.md']);
  });

  it('lists a folder and the vault root', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'list folder garden' });
    expect(r.reply).toContain('The folder "garden" holds 2 notes in all:\n- Compost (garden/compost.md)');
    expect(r.actions).toEqual([{ type: 'list_folder', summary: 'Listed "garden": 2 entries.' }]);
    const root = await agent.chat({ message: 'list folder' });
    expect(root.reply).toContain('- garden/ (folder, 2 notes)');
    const missing = await agent.chat({ message: 'list folder nowhere' });
    expect(missing.reply).toContain('I could not list "nowhere": No folder at "nowhere".');
    expect(missing.actions).toEqual([]);
  });

  it('shows backlinks', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'show backlinks of Compost' });
    expect(r.reply).toContain(
      '1 note links to "Compost" (garden/compost.md):\n- Garden plan (garden/plan.md)',
    );
    const q = await agent.chat({ message: 'What links to Garden plan?' });
    expect(q.reply).toContain('- Standup (work/standup.md)');
  });

  it('explains itself when the message has nothing to search for', async () => {
    const { agent } = await localAgent();
    const r = await agent.chat({ message: 'what is it?' });
    expect(r.reply).toMatch(/offline, without a language model/);
    expect(r.actions).toEqual([]);
  });

  it('reports what it is in status', async () => {
    const { agent } = await localAgent();
    const s = await agent.status();
    expect(s).toMatchObject({ enabled: true, provider: 'local', local: true, reachable: true });
    expect(s.description).toMatch(/no language model/);
    expect(s.tools.map((t) => [t.name, t.write])).toEqual([
      ['search_notes', false],
      ['read_note', false],
      ['list_folder', false],
      ['backlinks', false],
      ['create_note', true],
      ['append_to_note', true],
    ]);
  });

  it('is refused with AGENT_DISABLED when switched off', async () => {
    const { notes, clock } = await vaultNotes();
    const agent = createAgent({ notes, clock, provider: localProvider(), enabled: false });
    await expect(agent.chat({ message: 'hi' })).rejects.toMatchObject({ code: 'AGENT_DISABLED' });
    expect(await agent.status()).toMatchObject({ enabled: false, reachable: null });
  });
});
