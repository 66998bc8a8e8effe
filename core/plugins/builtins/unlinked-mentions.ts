/**
 * `unlinked-mentions`: where a note's title (or file name) is written in other notes without a
 * link to it, and which other notes' titles a note mentions without linking them. "Linked" is
 * what the link graph says (resolved links and backlinks), so aliases and relative links count.
 */
import * as v from 'valibot';
import type { NoteSummary } from '../../notes/note-index.ts';
import { stem } from '../../paths.ts';
import { definePlugin } from '../define.ts';
import type { PluginNotes } from '../types.ts';

/** One note that mentions (or is mentioned) without a link. */
export interface Mention {
  path: string;
  title: string;
  /** The words as they matched. */
  matched: string;
  count: number;
  excerpt: string;
}

/** The body with code, links and URLs blanked out (mentions there are not prose). */
export function prose(body: string): string {
  return body
    .replace(/^(\s*)(```|~~~)[\s\S]*?^\s*\2.*$/gm, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/!?\[\[[^\]\n]*\]\]/g, ' ')
    .replace(/!?\[[^\]\n]*\]\([^)\n]*\)/g, ' ')
    .replace(/<[^>\n]+>/g, ' ')
    .replace(/\bhttps?:\/\/\S+/g, ' ');
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Occurrences of `name` in `text` as whole words (case-insensitive), with an excerpt of the first. */
export function occurrences(text: string, name: string): { count: number; matched: string; excerpt: string } {
  const re = new RegExp(
    `(?<![\\p{L}\\p{N}_])${escapeRegex(name).replace(/\s+/g, '\\s+')}(?![\\p{L}\\p{N}_])`,
    'giu',
  );
  let count = 0;
  let first: RegExpExecArray | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    count++;
    first ??= m;
  }
  if (!first) return { count: 0, matched: '', excerpt: '' };
  const from = Math.max(0, first.index - 60);
  const to = Math.min(text.length, first.index + first[0].length + 60);
  const excerpt = `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ').trim()}${to < text.length ? '…' : ''}`;
  return { count, matched: first[0], excerpt };
}

/** The names a note goes by: its title and, when different, its file name. */
const namesOf = (n: NoteSummary, min: number): string[] =>
  [...new Set([n.title.trim(), stem(n.path)])].filter((s) => [...s].length >= min);

/** Finds both directions for the note at `path`. */
export async function findUnlinkedMentions(
  notes: PluginNotes,
  path: string,
  opts: { minTitleLength: number; maxResults: number },
) {
  const items = notes.list();
  const target = items.find((n) => n.path === path);
  const note = await notes.get(path);
  const title = target?.title ?? note.title;
  const linkedFrom = new Set(note.backlinks.map((b) => b.path));
  const linksTo = new Set(note.links.map((l) => l.path).filter((p): p is string => p !== null));
  const text = prose(note.content);
  // A cheap first filter before the word-boundary regex (whitespace runs count as one space).
  const flat = text.toLowerCase().replace(/\s+/g, ' ');

  // Outgoing: other notes' names written here, not linked.
  const outgoing: Mention[] = [];
  for (const other of items) {
    if (other.path === path || linksTo.has(other.path)) continue;
    for (const name of namesOf(other, opts.minTitleLength)) {
      if (!flat.includes(name.toLowerCase().replace(/\s+/g, ' '))) continue;
      const o = occurrences(text, name);
      if (o.count) {
        outgoing.push({ path: other.path, title: other.title, ...o });
        break;
      }
    }
  }

  // Incoming: notes writing this note's names without linking here (candidates from search).
  const incoming: Mention[] = [];
  const seen = new Set<string>();
  for (const name of target ? namesOf(target, opts.minTitleLength) : []) {
    let hits: { path: string; title: string }[] = [];
    try {
      hits = await notes.search(name, 100);
    } catch {
      hits = [];
    }
    for (const h of hits) {
      if (h.path === path || linkedFrom.has(h.path) || seen.has(h.path)) continue;
      const other = await notes.get(h.path).catch(() => null);
      if (!other) continue;
      const o = occurrences(prose(other.content), name);
      if (o.count) {
        seen.add(h.path);
        incoming.push({ path: h.path, title: h.title, ...o });
      }
    }
  }
  const byCount = (a: Mention, b: Mention) => b.count - a.count || (a.path < b.path ? -1 : 1);
  return {
    path,
    title,
    incoming: incoming.sort(byCount).slice(0, opts.maxResults),
    outgoing: outgoing.sort(byCount).slice(0, opts.maxResults),
  };
}

const Config = v.object({
  minTitleLength: v.pipe(
    v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 3),
    v.description('Shorter titles are never matched (they would match everywhere).'),
  ),
  maxResults: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 50),
});

const PathInput = v.object({
  path: v.pipe(v.string('Give the note in "path".'), v.trim(), v.minLength(1), v.maxLength(1024)),
});

/** The built-in `unlinked-mentions` plugin. */
export const unlinkedMentions = definePlugin({
  id: 'unlinked-mentions',
  name: 'Unlinked mentions',
  version: '1.0.0',
  description:
    "Finds where a note's title is written in other notes without a link (and which titles a note mentions without linking them). An agent tool and a route.",
  capabilities: ['tools', 'routes', 'notes:read'],
  configSchema: Config,
  activate({ config, notes }) {
    const find = (ref: string) => findUnlinkedMentions(notes, notes.resolve(ref), config);
    return {
      tools: [
        {
          name: 'unlinked_mentions',
          description:
            'For a note (path or title): notes that mention its title without linking to it (incoming), and titles of other notes it mentions without linking (outgoing).',
          input: PathInput,
          write: false,
          async run({ path }: v.InferOutput<typeof PathInput>) {
            const r = await find(path);
            return {
              output: r,
              action: {
                type: 'unlinked_mentions',
                summary: `Found ${r.incoming.length} unlinked mention${r.incoming.length === 1 ? '' : 's'} of "${r.title}" and ${r.outgoing.length} unlinked title${r.outgoing.length === 1 ? '' : 's'} in it.`,
                path: r.path,
              },
              related: [
                { path: r.path, title: r.title },
                ...r.incoming.map(({ path: p, title }) => ({ path: p, title })),
              ],
            };
          },
        },
      ],
      routes: [
        {
          method: 'GET',
          path: '/mentions',
          description: 'GET ?path=note.md: {path, title, incoming: [...], outgoing: [...]}.',
          input: PathInput,
          run: ({ path }: v.InferOutput<typeof PathInput>) => find(path),
        },
      ],
    };
  },
});
