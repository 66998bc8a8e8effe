/**
 * The offline provider: no language model. It reads a message with fixed rules
 * (`local-commands.ts`), calls the same tools an LLM would, and writes the answer from
 * their results, citing the notes it used. Deterministic and fast.
 */

import { readableCut, readableText } from '../notes/markdown/readable.ts';
import { plainText } from '../search/cite.ts';
import { keywords, type LocalPlan, planFor, searchQuery } from './local-commands.ts';
import type { AgentMessage, LlmProvider, StepRequest, StepResult, ToolCall, ToolResult } from './provider.ts';

const FOOTER = '\n\n— Quire local assistant (offline and rule-based; no language model).';

const HELP = [
  "I'm Quire's local assistant: I work offline, without a language model. I can:",
  '- search your notes: "what do my notes say about compost?"',
  '- summarize a note: send its notePath, or "summarize Garden plan"',
  '- create a note: "create a note titled Groceries with text milk, eggs"',
  '- append to a note: "append \'call Anna\' to Todo"',
  '- find notes by tag: "find notes tagged #project"',
  '- list a folder: "list folder projects"',
  '- show backlinks: "show backlinks of Garden plan"',
].join('\n');

const call = (name: string, args: Record<string, unknown>, n = 1): ToolCall => ({
  id: `local-${n}`,
  name,
  args,
});

function callsFor(plan: LocalPlan): ToolCall[] {
  switch (plan.kind) {
    case 'create':
      return [
        call('create_note', {
          path: plan.path,
          content: `# ${plan.title}\n\n${plan.text ? `${plan.text}\n` : ''}`,
        }),
      ];
    case 'append':
      return [call('append_to_note', { path: plan.note, text: plan.text })];
    case 'tag':
      return [call('search_notes', { tag: plan.tag, limit: 20 })];
    case 'folder':
      return [call('list_folder', { path: plan.path })];
    case 'backlinks':
      return [call('backlinks', { path: plan.note })];
    case 'summarize':
      return [call('read_note', { path: plan.note })];
    case 'search':
      return [call('search_notes', { query: plan.query, limit: 5 })];
    case 'help':
      return [];
  }
}

type Hit = {
  path: string;
  title: string;
  snippet: string;
  tags: string[];
  heading?: string;
  passage?: string;
};
const err = (r: ToolResult): string | null =>
  r.isError ? String((r.output as { error?: unknown })?.error ?? 'it failed') : null;

/** A heading as it reads (a heading may hold links or emphasis too). */
const headingOf = (h: Hit): string => (h.heading ? readableText(h.heading) : '');
const where = (h: Hit): string => {
  const heading = headingOf(h);
  return heading && heading !== h.title ? `${h.title} › ${heading}` : h.title;
};
const cite = (h: Hit): string => {
  const heading = headingOf(h);
  return heading && heading !== h.title ? `${h.path} › ${heading}` : h.path;
};

/** A passage (readable lines) as one line near 200 characters, its code blocks left out. */
function oneLine(passage: string): string {
  let fenced = false;
  const prose = passage.split('\n').filter((l) => {
    if (/^\s*(?:`{3,}|~{3,})/.test(l)) fenced = !fenced;
    else return !fenced;
    return false;
  });
  const text = prose.map((l) => l.replace(/^- /, '')).join(' ');
  return readableCut(text.replace(/\s+/g, ' ').trim(), 200);
}

/** Most characters of the passage an answer quotes. */
const QUOTE_LIMIT = 600;

/**
 * A passage (readable lines from the search tool) as a quote: every line behind `> `, blank lines
 * kept as the quote's own, so it reads as a quote as text and renders as one in markdown.
 */
function quoted(passage: string): string {
  return readableCut(passage, QUOTE_LIMIT)
    .split('\n')
    .map((l) => (l.trim() ? `> ${l}` : '>'))
    .join('\n');
}

/**
 * The answer from retrieval, in the order search ranks: the first passage quoted, the next
 * ones named, every source cited. Plain text that is also markdown (a quote, a list).
 */
function hitsAnswer(hits: Hit[], what: string): string {
  if (!hits.length) {
    return `I found nothing in your notes about ${what}. Try other words, or a tag ("find notes tagged #idea").`;
  }
  const [best, ...rest] = hits as [Hit, ...Hit[]];
  const quote = best.passage ? quoted(best.passage) : best.snippet ? `> ${best.snippet}` : '';
  const lines = [
    `From your notes, "${where(best)}" [1] answers ${what}:`,
    '',
    quote || '(The passage has no text besides its heading.)',
  ];
  if (rest.length) {
    lines.push('', 'Also relevant:', '');
    rest.forEach((h, i) => {
      // One line: the passage's prose (its code blocks are for the quote above).
      const text = h.passage ? oneLine(h.passage) : h.snippet;
      lines.push(`- [${i + 2}] ${where(h)} (${h.path})${text ? `: ${text}` : ''}`);
    });
  }
  lines.push('', `Sources: ${hits.map((h, i) => `[${i + 1}] ${cite(h)}`).join(', ')}`);
  return lines.join('\n');
}

function answer(plan: LocalPlan, results: ToolResult[]): string {
  const r = results[0]!;
  const e = err(r);
  // biome-ignore lint/suspicious/noExplicitAny: the outputs are the core tools' own shapes (tools.ts).
  const o = r.output as Record<string, any>;
  switch (plan.kind) {
    case 'create':
      return e
        ? `I could not create "${plan.title}": ${e}`
        : `Created the note "${o.title}" at ${o.created}.`;
    case 'append':
      return e
        ? `I could not append to "${plan.note}": ${e}`
        : `Appended your text to "${o.title}" (${o.appended}).`;
    case 'tag': {
      if (e) return `I could not look up #${plan.tag}: ${e}`;
      const hits = o.results as Hit[];
      if (!hits.length) return `No note is tagged #${plan.tag}.`;
      return `${hits.length} note${hits.length === 1 ? ' is' : 's are'} tagged #${plan.tag}:\n${hits.map((h) => `- ${h.title} (${h.path})`).join('\n')}`;
    }
    case 'folder': {
      if (e) return `I could not list "${plan.path}": ${e}`;
      const where = o.folder ? `The folder "${o.folder}"` : 'The vault root';
      const entries = o.entries as { type: string; path: string; title?: string; noteCount?: number }[];
      if (!entries.length) return `${where} is empty.`;
      const lines = entries.map((x) =>
        x.type === 'folder'
          ? `- ${x.path}/ (folder, ${x.noteCount} note${x.noteCount === 1 ? '' : 's'})`
          : `- ${x.title} (${x.path})`,
      );
      return `${where} holds ${o.noteCount} note${o.noteCount === 1 ? '' : 's'} in all:\n${lines.join('\n')}`;
    }
    case 'backlinks': {
      if (e) return `I could not find the backlinks of "${plan.note}": ${e}`;
      const b = o.backlinks as { path: string; title: string }[];
      if (!b.length) return `No note links to "${o.title}" (${o.path}).`;
      return `${b.length} note${b.length === 1 ? ' links' : 's link'} to "${o.title}" (${o.path}):\n${b.map((x) => `- ${x.title} (${x.path})`).join('\n')}`;
    }
    case 'summarize': {
      if (e) return `I could not read "${plan.note}": ${e}`;
      const parts = [`Summary of "${o.title}" (${o.path}), ${o.wordCount} words.`];
      if (o.tags.length) parts.push(`Tags: ${o.tags.map((t: string) => `#${t}`).join(', ')}`);
      if (o.headings.length)
        parts.push(
          `Headings: ${o.headings.map((x: string) => readableText(x.replace(/^#+\s*/, ''))).join(' · ')}`,
        );
      if (o.links.length) parts.push(`Links to: ${o.links.join(', ')}`);
      if (o.backlinks.length) parts.push(`Linked from: ${o.backlinks.join(', ')}`);
      const ex = plainText(o.content, 320);
      parts.push(ex ? `Extract: ${ex}` : 'The note has no text besides its headings.');
      return parts.join('\n');
    }
    case 'search': {
      if (e) return `I could not search your notes: ${e}`;
      // The first search wants every word; the fallback (one search per word) wants any.
      const seen = new Map<string, { hit: Hit; n: number }>();
      for (const x of results) {
        for (const h of ((x.output as { results?: Hit[] })?.results ?? []) as Hit[]) {
          const s = seen.get(h.path) ?? { hit: h, n: 0 };
          s.n++;
          seen.set(h.path, s);
        }
      }
      const hits = [...seen.values()]
        .sort((a, b) => b.n - a.n)
        .slice(0, 5)
        .map((s) => s.hit);
      return hitsAnswer(hits, `"${plan.query}"`);
    }
    case 'help':
      return HELP;
  }
}

/** Messages of the current turn (after the last user message). */
function currentTurn(messages: AgentMessage[]): { user: string; results: ToolResult[][] } {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role !== 'user') i--;
  const user = i >= 0 ? (messages[i] as { content: string }).content : '';
  const results = messages.slice(i + 1).flatMap((m) => (m.role === 'tool' ? [m.results] : []));
  return { user, results };
}

/** The offline provider. */
export function localProvider(): LlmProvider {
  return {
    name: 'local',
    model: 'quire-local-rules',
    description:
      'Offline, rule-based assistant inside the server (no language model): searches your notes, summarizes one, and runs explicit commands.',
    async step(req: StepRequest): Promise<StepResult> {
      const { user, results } = currentTurn(req.messages);
      const plan = planFor(user, req.notePath);
      if (results.length === 0) {
        const calls = callsFor(plan);
        const missing = calls.find((c) => !req.tools.some((t) => t.name === c.name));
        if (missing) {
          return {
            text: `I can't do that here: changing notes is switched off for this chat (${missing.name} is not available).${FOOTER}`,
            toolCalls: [],
          };
        }
        return calls.length ? { text: '', toolCalls: calls } : { text: HELP + FOOTER, toolCalls: [] };
      }
      const first = results[0]!;
      // A note named in a command that no note is ("add an emoji prefix to page names", "which
      // notes link to this one"): the message was a question, so it is searched.
      const gone = 'note' in plan && /^No note called/.test(err(first[0]!) ?? '') ? plan.note : null;
      if (gone !== null) {
        const query = searchQuery(user);
        if (results.length === 1)
          return { text: '', toolCalls: [call('search_notes', { query, limit: 5 }, 2)] };
        const searched = answer({ kind: 'search', query, words: keywords(query) }, results.slice(1).flat());
        return {
          text: `No note is called "${gone}", so I searched your notes.\n\n${searched}${FOOTER}`,
          toolCalls: [],
        };
      }
      if (plan.kind === 'search' && results.length === 1 && plan.words.length > 1 && !err(first[0]!)) {
        const found = (first[0]!.output as { results: Hit[] }).results;
        if (found.length === 0) {
          const words = plan.words.slice(0, 6);
          return {
            text: '',
            toolCalls: words.map((w, i) => call('search_notes', { query: w, limit: 5 }, i + 2)),
          };
        }
      }
      return { text: answer(plan, results.flat()) + FOOTER, toolCalls: [] };
    },
  };
}
