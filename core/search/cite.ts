/**
 * Passages as citations: the text a search hit drew on, with its note's path and heading, so an
 * answer can say where each fact came from.
 */
import { readableCut, readableLines, readableText } from '../notes/markdown/readable.ts';
import type { NoteService } from '../notes/service.ts';
import { terms as termsOf } from './lexical/text.ts';
import { type Passage, splitPassages } from './semantic/passages.ts';

/** A passage an answer may cite. */
export interface Cited {
  path: string;
  title: string;
  /** '' before the note's first heading. */
  heading: string;
  /** The passage's markdown. */
  text: string;
  /** The passage as plain text, cut to about 240 characters. */
  snippet: string;
}

/** Plain text of a markdown passage, headings left out, cut near `max` characters at a word. */
export function plainText(md: string, max = 240): string {
  const text = readableText(md.replace(/^\s*#{1,6}\s.*$/gm, ''));
  return text.length > max ? `${text.slice(0, max).replace(/\s+\S*$/, '')}…` : text;
}

/**
 * A passage as the agent hands it on: its heading line left out (the heading goes beside it), the
 * rest as readable lines (code kept as code), cut near `max` characters at a line or word.
 */
export function readablePassage(md: string, max: number): string {
  return readableCut(readableLines(md.replace(/^\s*#{1,6}\s[^\n]*\n?/, ''), { code: true }), max);
}

const toCited = (title: string, p: Passage): Cited => ({
  path: p.path,
  title,
  heading: p.heading,
  text: p.text,
  snippet: plainText(p.text),
});

async function passagesOf(
  notes: NoteService,
  path: string,
): Promise<{ title: string; ps: Passage[] } | null> {
  const note = await notes.get(path).catch(() => null);
  return note ? { title: note.title, ps: splitPassages(note.path, note.title, note.content) } : null;
}

/** The `n`-th passage of the note at `path`; null when the note or passage is gone. */
export async function citeOf(notes: NoteService, path: string, n: number): Promise<Cited | null> {
  const got = await passagesOf(notes, path);
  const p = got?.ps[n];
  return got && p ? toCited(got.title, p) : null;
}

/**
 * The passage of the note at `path` that best answers `q`: the one under `heading` when given
 * (what semantic search found), else the one sharing most of the search's terms with `q`.
 */
export async function bestPassage(
  notes: NoteService,
  path: string,
  q: string,
  heading?: string,
): Promise<Cited | null> {
  const got = await passagesOf(notes, path);
  if (!got?.ps.length) return null;
  if (heading !== undefined) {
    const p = got.ps.find((x) => x.heading === heading);
    if (p) return toCited(got.title, p);
  }
  // Scored by the search's own terms (stems, no stop words): a word of the question in the
  // passage's heading counts twice, in its text once; ties go to the earliest passage.
  const want = new Set(termsOf(q));
  let best = got.ps[0]!;
  let bestScore = -1;
  for (const p of got.ps) {
    const head = new Set(termsOf(p.heading));
    const body = new Set(termsOf(p.text));
    let s = 0;
    for (const w of want) s += (head.has(w) ? 2 : 0) + (body.has(w) ? 1 : 0);
    if (s > bestScore) {
      best = p;
      bestScore = s;
    }
  }
  return toCited(got.title, best);
}
