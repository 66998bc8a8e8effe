/**
 * Passages as citations: the text a search hit drew on, with its note's path and heading, so an
 * answer can say where each fact came from.
 */
import type { NoteService } from '../notes/service.ts';
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

const WORD = /[\p{L}\p{N}]+/gu;
const words = (s: string): string[] =>
  (s.normalize('NFKD').toLowerCase().match(WORD) ?? []).filter((w) => w.length > 1);

/** Plain text of a markdown passage (headings, links and emphasis reduced to their words). */
export function plainText(md: string, max = 240): string {
  const text = md
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/^\s*#{1,6}\s+.*$/gm, ' ')
    .replace(/!?\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_, a, b) => b ?? a)
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`>]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max).replace(/\s+\S*$/, '')}…` : text;
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
 * (what semantic search found), else the one sharing most words with `q` (ties: the earliest).
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
  const want = new Set(words(q));
  let best = got.ps[0]!;
  let bestScore = -1;
  for (const p of got.ps) {
    const have = new Set(words(`${p.heading} ${p.text}`));
    let s = 0;
    for (const w of want)
      if (
        have.has(w) ||
        [...have].some((h) => h.length > 3 && w.startsWith(h.slice(0, 4)) && h.startsWith(w.slice(0, 4)))
      )
        s++;
    if (s > bestScore) {
      best = p;
      bestScore = s;
    }
  }
  return toCited(got.title, best);
}
