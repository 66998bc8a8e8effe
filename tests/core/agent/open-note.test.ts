import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, localProvider } from '../../../core/index.ts';
import { vaultNotes } from '../../helpers/agent-fixtures.ts';
import { startFakeEmbeddings } from '../../helpers/fake-embeddings.ts';
import { HELP_VAULT, semanticVault } from '../search/semantic-fixtures.ts';

const CALLOUTS = 'Editing and formatting/Callouts.md';
const EMBED = 'Linking notes and files/Embed files.md';

async function helpAgent() {
  const { notes, clock } = await vaultNotes(HELP_VAULT);
  return { notes, agent: createAgent({ notes, clock, provider: localProvider() }) };
}

describe('the local agent with a note open: the question decides', () => {
  it('answers "How do I embed a PDF?" from the vault, not with a summary of the open Callouts note', async () => {
    const { agent } = await helpAgent();
    const r = await agent.chat({ message: 'How do I embed a PDF?', notePath: CALLOUTS });
    expect(r.reply).not.toMatch(/Summary of/);
    expect(r.reply).toContain('From your notes, "Embed files › Embed a PDF in a note" [1]');
    // The embed reads as the file it embeds, not as its syntax.
    expect(r.reply).toContain('To embed a PDF document, use Document.pdf.');
    expect(r.reply).not.toContain('![[');
    expect(r.reply).toContain(`Sources: [1] ${EMBED} › Embed a PDF in a note`);
    expect(r.citations[0]).toEqual({ path: EMBED, title: 'Embed files', heading: 'Embed a PDF in a note' });
    expect(r.actions.map((a) => a.type)).toEqual(['search_notes']);
  });

  it('uses the open note for "summarize this" and "what links here"', async () => {
    const { agent } = await helpAgent();
    const sum = await agent.chat({ message: 'Summarize this', notePath: CALLOUTS });
    expect(sum.reply).toContain('Summary of "Callouts"');
    const links = await agent.chat({ message: 'What links here?', notePath: EMBED });
    expect(links.actions).toEqual([expect.objectContaining({ type: 'backlinks', path: EMBED })]);
    expect(links.reply).toContain('Sync your notes');
    const about = await agent.chat({ message: 'What is this about?', notePath: CALLOUTS });
    expect(about.reply).toContain('Summary of "Callouts"');
  });

  it('reads a question without a note open as a vault search, as before', async () => {
    const { agent } = await helpAgent();
    const r = await agent.chat({ message: 'what is a canvas' });
    expect(r.citations[0]).toMatchObject({ path: 'Plugins/Canvas.md' });
  });
});

describe('the local agent over hybrid retrieval (fake embeddings server)', () => {
  let fake: Awaited<ReturnType<typeof startFakeEmbeddings>>;
  beforeEach(async () => {
    fake = await startFakeEmbeddings();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('cites the passage semantic search found, with its heading', async () => {
    const v = await semanticVault(fake.url);
    await v.semantic.start();
    await v.semantic.sync();
    try {
      const agent = createAgent({
        notes: v.notes,
        retrieval: v.retrieval,
        clock: { now: () => Date.now() },
        provider: localProvider(),
      });
      const before = fake.state.inputs.length;
      const r = await agent.chat({ message: 'How do I embed a PDF?', notePath: CALLOUTS });
      expect(fake.state.inputs.length).toBe(before + 1); // the query, embedded once
      expect(r.citations[0]).toEqual({ path: EMBED, title: 'Embed files', heading: 'Embed a PDF in a note' });
      expect(r.reply).not.toMatch(/Summary of/);
    } finally {
      v.semantic.stop();
    }
  });
});
