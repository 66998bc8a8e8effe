import { yieldToEventLoop } from '../../notes/slices.ts';
import { MAX_QUERY_CHARS } from '../schemas.ts';
import type { SearchHit, Visibility } from '../types.ts';
import { expandQuery } from './expansion.ts';
import { filtersOnly, type ParsedQuery, parseQuery } from './query.ts';
import { RANKING } from './ranking.ts';
import { rankNotes } from './scoring.ts';
import type { SearchIndex } from './search-index.ts';
import { makeSnippet } from './snippet.ts';
import { documentFrequency, visibleCount } from './statistics.ts';
import { pathWords, STOP_WORDS, terms, tokenize } from './text.ts';

/**
 * What a search runs over: the index, and of the vault the notes' tags and times, their titles
 * and the attachments (the note index gives all four).
 */
export interface SearchVault {
  search: Pick<SearchIndex, 'data'>;
  entries: ReadonlyMap<string, { path: string; tags: string[]; mtimeMs: number }>;
  titleOf(path: string): string;
  graph: { filesUnder(folder: string): readonly string[] };
}

/** A file's name matching every word scores like this share of a title match. */
const FILE_SHARE = 0.8;
const W_TITLE = 3;

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Whether `path` passes the query's tag:, path: and file: filters. */
function filterOf(p: ParsedQuery, tagsOf: (path: string) => string[] | null) {
  const under = (path: string, prefix: string) => {
    const lower = path.toLowerCase();
    return lower === prefix || lower.startsWith(`${prefix}/`) || (prefix === '' && true);
  };
  return (path: string, isNote: boolean): boolean => {
    if (p.paths.length && !p.paths.some((f) => under(path, f))) return false;
    if (p.notPaths.some((f) => under(path, f))) return false;
    if (p.files.length && !p.files.some((f) => baseName(path).toLowerCase().includes(f))) return false;
    if (p.tags.length || p.notTags.length) {
      if (!isNote) return false;
      const tags = (tagsOf(path) ?? []).map((t) => t.toLowerCase());
      const has = (t: string) => tags.some((x) => x === t || x.startsWith(`${t}/`));
      if (!p.tags.every(has) || p.notTags.some(has)) return false;
    }
    return true;
  };
}

/**
 * Runs a query (the syntax of docs/reference/search.md) over the note index and the vault's attachments:
 * ranks notes in the index, checks phrases and lifts notes holding the query's words side by
 * side (reading the best candidates' text through `body`), and adds attachments whose file name
 * matches every word (`type: 'file'`). Filters alone list matching notes, latest first.
 * With `see` (a folder-limited key's), only what it sees exists: notes and attachments it refuses
 * are never candidates and count in no statistic (see `SearchIndex.query`).
 */
export async function runSearch(
  index: SearchVault,
  body: (path: string) => Promise<string>,
  q: string,
  limit: number,
  see?: Visibility,
): Promise<SearchHit[]> {
  const p = parseQuery(q.slice(0, MAX_QUERY_CHARS));
  const tagsOf = (path: string) => index.entries.get(path)?.tags ?? null;
  const filter = filterOf(p, tagsOf);
  const pass = see ? (path: string, isNote: boolean) => see(path) && filter(path, isNote) : filter;
  const hits: SearchHit[] = [];
  const files = p.tags.length || p.phrases.length ? [] : index.graph.filesUnder('');

  if (filtersOnly(p)) {
    const notes = [...index.entries.values()]
      .filter((e) => pass(e.path, true))
      .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1))
      .slice(0, limit);
    for (const e of notes) hits.push(await noteHit(index, body, e.path, 0, []));
    for (const f of files) if (hits.length < limit && pass(f, false)) hits.push(fileHit(f, 0));
    return hits;
  }

  const bigrams: string[] = [];
  for (let i = 0; i + 1 < p.words.length; i++) {
    const [a, b] = [p.words[i]!, p.words[i + 1]!];
    if (!STOP_WORDS.has(a) || !STOP_WORDS.has(b)) bigrams.push(`${a} ${b}`);
  }
  // A few candidates beyond the page when the proximity bonus may reorder them; none otherwise
  // (each candidate's text is read).
  const depth =
    p.phrases.length || p.notPhrases.length ? 200 : bigrams.length ? Math.min(limit + 5, 105) : limit;
  // The query's words expanded first (prefixes, misspellings), a turn of the event loop after each
  // word looked up as a misspelling: each look-up has its own share of the budget (docs/reference/search.md).
  // The query side is called directly (the index's own `expand` and `query` say the same).
  const steps = expandQuery(index.search.data, p, see);
  let step = steps.next();
  while (!step.done) {
    await yieldToEventLoop();
    step = steps.next();
  }
  const ranked = see
    ? rankNotes(index.search.data, p, depth, (path) => filter(path, true), see, step.value)
    : rankNotes(index.search.data, p, depth, (path) => pass(path, true), undefined, step.value);
  const scored: { path: string; score: number; terms: string[]; text: string }[] = [];
  const take = (r: (typeof ranked)[number], text: string) => {
    let score = r.score;
    if (p.phrases.length || p.notPhrases.length) {
      const flat = ` ${tokenize(`${index.titleOf(r.path)} . ${text}`).join(' ')} `;
      if (!p.phrases.every((ph) => flat.includes(` ${ph} `))) return;
      if (p.notPhrases.some((ph) => flat.includes(` ${ph} `))) return;
    }
    if (bigrams.length) {
      // Cheap on purpose (no tokenizing): the query's neighbouring words, as typed, in the text.
      const lower = `${index.titleOf(r.path)}\n${text}`.toLowerCase();
      const found = bigrams.filter((b) => lower.includes(b)).length;
      score *= 1 + (RANKING.proximity * found) / bigrams.length;
    }
    scored.push({ path: r.path, score, terms: r.terms, text });
  };
  // The candidates' texts are read together (a batch at a time while phrases must still be found).
  const batch = p.phrases.length ? Math.max(limit, 20) : ranked.length;
  for (let at = 0; at < ranked.length; at += batch) {
    if (p.phrases.length && scored.length >= limit) break;
    const part = ranked.slice(at, at + batch);
    const texts = await Promise.all(part.map((r) => body(r.path)));
    for (let i = 0; i < part.length; i++) {
      if (p.phrases.length && scored.length >= limit) break;
      take(part[i]!, texts[i]!);
    }
  }
  const fileHits = matchFiles(index, p, files, pass, see);
  const all = [
    ...scored.map((s) => ({ ...s, file: false })),
    ...fileHits.map((f) => ({ ...f, terms: [], text: '', file: true })),
  ].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
  for (const s of all.slice(0, limit)) {
    const score = Math.round(s.score * 1000) / 1000;
    hits.push(
      s.file ? fileHit(s.path, score) : await noteHit(index, async () => s.text, s.path, score, s.terms),
    );
  }
  return hits;
}

const nameCache = new Map<string, string[]>();
/** The index words of a file's name (memoized: the same attachments are matched query after query). */
function nameWords(path: string): string[] {
  let w = nameCache.get(path);
  if (!w) {
    w = terms(pathWords(baseName(path)), true);
    if (nameCache.size > 50_000) nameCache.clear();
    nameCache.set(path, w);
  }
  return w;
}

/** Attachments whose file name holds every word of the query (the last as a prefix too). */
function matchFiles(
  index: SearchVault,
  p: ParsedQuery,
  files: readonly string[],
  pass: (path: string, isNote: boolean) => boolean,
  see?: Visibility,
): { path: string; score: number }[] {
  const out: { path: string; score: number }[] = [];
  if (!p.clauses.length) return out;
  const data = index.search.data;
  const n = Math.max(1, visibleCount(data, see));
  for (const f of files) {
    if (!pass(f, false)) continue;
    const words = nameWords(f);
    let score = 0;
    const all = p.clauses.every((c, i) => {
      const last = i === p.clauses.length - 1 && p.prefixLast;
      const hit = c.alts.find((a) =>
        words.some((w) => w === a || (last && a.length >= 2 && w.startsWith(a))),
      );
      if (hit === undefined) return false;
      const df = documentFrequency(data, hit, see);
      score += Math.log(1 + (n - df + 0.5) / (df + 0.5)) * W_TITLE * FILE_SHARE;
      return true;
    });
    if (all && !p.exclude.some((x) => words.includes(x))) out.push({ path: f, score });
  }
  return out;
}

async function noteHit(
  index: SearchVault,
  body: (path: string) => Promise<string>,
  path: string,
  score: number,
  matched: string[],
): Promise<SearchHit> {
  return {
    path,
    title: index.titleOf(path),
    snippet: makeSnippet(await body(path), matched),
    score,
    tags: index.entries.get(path)?.tags ?? [],
    type: 'note',
  };
}

function fileHit(path: string, score: number): SearchHit {
  return { path, title: baseName(path), snippet: path, score, tags: [], type: 'file' };
}
