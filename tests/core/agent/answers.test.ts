/**
 * Answers that read well: over fixture vaults with questions judged as the search evaluation
 * judges them (`questions.json`: each question's relevant notes), the offline agent cites a
 * relevant note first at least as often as search ranks one first, and no reply, snippet or
 * passage handed to a model shows raw markdown syntax.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readVault } from '../../../bench/search-eval/vault.ts';
import type { LlmProvider, StepRequest } from '../../../core/agent/provider.ts';
import { createAgent, localProvider } from '../../../core/index.ts';
import { rawMarkup } from '../../../core/notes/markdown/readable.ts';
import { vaultNotes } from '../../helpers/agent-fixtures.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));

async function vault(name: string) {
  const dir = join(fixtures, name);
  const questions = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as {
    q: string;
    relevant: string[];
  }[];
  const { notes, clock } = await vaultNotes(readVault(dir));
  return { notes, clock, questions };
}

describe('answers that read well', () => {
  for (const name of ['answers-vault', 'search-vault']) {
    it(`${name}: the offline agent cites the right note first at least as often as search's hit@1, with no raw markup`, async () => {
      const { notes, clock, questions } = await vault(name);
      const agent = createAgent({ notes, clock, provider: localProvider() });
      let searchFirst = 0;
      let answerFirst = 0;
      for (const { q, relevant } of questions) {
        const top = (await notes.search(q, 1))[0]?.path ?? '';
        if (relevant.includes(top)) searchFirst++;
        const r = await agent.chat({ message: q });
        if (relevant.includes(r.citations[0]?.path ?? '')) answerFirst++;
        expect(rawMarkup(r.reply), `${q}\n${r.reply}`).toEqual([]);
        for (const hit of await notes.search(q, 10)) {
          expect(rawMarkup(hit.snippet), `${q}: ${hit.path}: ${hit.snippet}`).toEqual([]);
        }
      }
      expect(answerFirst).toBeGreaterThanOrEqual(searchFirst);
      expect(answerFirst / questions.length).toBeGreaterThanOrEqual(0.75);
    });
  }

  it('answers the two questions the issue names from the right passage, read as text', async () => {
    const { notes, clock } = await vault('answers-vault');
    const agent = createAgent({ notes, clock, provider: localProvider() });
    const keys = await agent.chat({ message: 'keyboard shortcuts' });
    expect(keys.citations[0]?.path).toBe('Settings/Hotkeys.md');
    expect(keys.reply).toContain('From your notes, "Hotkeys" [1]');
    // Icons read as nothing, emphasis and html as their words.
    expect(keys.reply).toContain(
      '> Hotkeys are keyboard shortcuts for commands. Open Settings and pick Hotkeys',
    );
    expect(keys.reply).not.toMatch(/lucide|\.svg|\[\[#|```sh/);
    const pdf = await agent.chat({ message: 'how do I embed a pdf?' });
    expect(pdf.citations[0]).toEqual({
      path: 'Linking/Embed files.md',
      title: 'Embed files',
      heading: 'Embed a PDF in a note',
    });
    expect(pdf.reply).toContain('> To embed a PDF, use Document.pdf. Add `#page=3` to open it at a page');
  });

  it('shows wiki-links in snippets as Obsidian shows them: the alias, the heading', async () => {
    const { notes } = await vault('answers-vault');
    const [hit] = await notes.search('remote vault', 1);
    expect(hit?.snippet).toContain('To create a remote vault, open Sync and select Create.');
    expect(hit?.snippet).not.toMatch(/\||\$\{|\]\]/);
    const [terminal] = await notes.search('terminal plugin', 1);
    expect(terminal?.snippet).toContain('Its keys are listed under hotkeys; see also Terminal keys below.');
    expect(terminal?.snippet).not.toContain('quire --help');
  });

  it('hands a language model the passages search ranks first, cleaned, and lets it cite them', async () => {
    const { notes, clock } = await vault('answers-vault');
    const seen: StepRequest[] = [];
    // A provider that answers without calling a tool, naming the note it was handed.
    const model: LlmProvider = {
      name: 'openai',
      model: 'recording',
      description: 'records what it is asked',
      async step(req) {
        seen.push(req);
        return { text: 'See Settings/Hotkeys.md: open Settings, then Hotkeys.', toolCalls: [] };
      },
      probe: async () => true,
    };
    const agent = createAgent({ notes, clock, provider: model });
    const r = await agent.chat({ message: 'What do my notes say about keyboard shortcuts?' });
    const system = seen[0]!.system;
    expect(system).toContain('[1] Settings/Hotkeys.md');
    expect(system).toContain('Hotkeys are keyboard shortcuts for commands.');
    const context = system.slice(system.indexOf('[1] '));
    expect(rawMarkup(context)).toEqual([]);
    expect(context).not.toMatch(/lucide|<kbd>/);
    expect(r.citations.map((c) => c.path)).toEqual(['Settings/Hotkeys.md']);
    // With the open note as the question's subject, the note itself is the context.
    seen.length = 0;
    await agent.chat({ message: 'Summarize this', notePath: 'Settings/Terminal.md' });
    expect(seen[0]!.system).not.toContain('search ranks first');
  });
});
