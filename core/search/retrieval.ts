/**
 * One retrieval for every client (REST search, MCP, the agent's tools): lexical search from the
 * note service, semantic search over passages when an embeddings provider is configured, and
 * hybrid (both, fused by reciprocal rank) as the default then. The provider failing never breaks
 * a search: hybrid answers the lexical hits and says so.
 */
import { DomainError } from '../errors.ts';
import type { Note, NoteService } from '../notes/service.ts';
import type { Logger } from '../ports.ts';
import { bestPassage, type Cited, citeOf } from './cite.ts';
import { MAX_QUERY_CHARS, type SearchMode } from './schemas.ts';
import type { PassageHit, SemanticIndex } from './semantic/semantic-index.ts';
import type { SearchHit, Visibility } from './types.ts';

export type { SearchMode };

/** A search hit with the passage that matched best, when known. */
export interface RetrievalHit extends SearchHit {
  /** The heading of the best passage ('' before the first heading); absent when unknown. */
  heading?: string;
}

/** What one search ran and found. */
export interface RetrievalResult {
  /** The mode that actually ran (hybrid falls back to lexical when the provider fails). */
  mode: SearchMode;
  hits: RetrievalHit[];
}

/** Reciprocal rank fusion constant (Cormack et al.; the usual 60). */
export const RRF_K = 60;

/** Builds the retrieval over `notes`, with `semantic` when embeddings are configured. */
export function createRetrieval(deps: { notes: NoteService; semantic?: SemanticIndex; logger?: Logger }) {
  const { notes, semantic, logger } = deps;

  /** The mode asked for (the default when none), refused while semantic search is off. */
  const modeOf = (asked: SearchMode | undefined): SearchMode => {
    const mode = asked ?? (semantic ? 'hybrid' : 'lexical');
    if (mode !== 'lexical' && !semantic) {
      throw new DomainError(
        'VALIDATION_ERROR',
        `mode=${mode} needs semantic search: set EMBEDDINGS_URL and EMBEDDINGS_MODEL (docs/reference/search.md).`,
      );
    }
    return mode;
  };

  const fromPassage = async (p: PassageHit, score: number): Promise<RetrievalHit | null> => {
    const s = notes.indexedSummary(p.path);
    if (!s) return null;
    const c = await citeOf(notes, p.path, p.n);
    return {
      path: p.path,
      title: s.title,
      snippet: c?.snippet ?? '',
      score,
      tags: s.tags,
      type: 'note',
      heading: p.heading,
    };
  };

  const semanticHits = async (q: string, limit: number, see?: Visibility): Promise<PassageHit[]> => {
    try {
      return await semantic!.search(q, limit, see);
    } catch (err) {
      throw new DomainError(
        'EMBEDDINGS_ERROR',
        `The embeddings provider failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };

  /** Neighbours of the hint note (its links and backlinks): a small lift, never the hint itself. */
  const hintBonus = (hint: string | undefined): Map<string, number> => {
    const out = new Map<string, number>();
    const s = hint ? notes.indexedSummary(hint) : null;
    if (!s) return out;
    for (const l of s.links) if (l.path && l.path !== hint) out.set(l.path, 0.5 / (RRF_K + 1));
    for (const b of s.backlinks) if (b.path !== hint) out.set(b.path, 0.5 / (RRF_K + 1));
    return out;
  };

  return {
    /** The mode a search runs in when none is asked for. */
    defaultMode: (): SearchMode => (semantic ? 'hybrid' : 'lexical'),

    /** Whether semantic search is configured. */
    semanticOn: (): boolean => semantic !== undefined,

    /**
     * Searches `q` (a query checked at the edge: schemas.ts) in `mode`, at most `limit` hits
     * (default 20); VALIDATION_ERROR when a semantic mode is asked while semantic search is off.
     * `semantic` rejects with EMBEDDINGS_ERROR when the provider fails; `hybrid` then answers lexical.
     * `hint`: a note the user has open, whose neighbours rank a little higher. `see`: only the
     * paths it accepts exist for this search (a folder-limited key's; ranked as a vault of its own).
     */
    async search(
      q: string,
      opts: { mode?: SearchMode; limit?: number; hint?: string; see?: Visibility } = {},
    ): Promise<RetrievalResult> {
      const see = opts.see;
      const mode = modeOf(opts.mode);
      const limit = opts.limit ?? 20;
      const query = q.slice(0, MAX_QUERY_CHARS);
      if (mode === 'lexical' && !opts.hint) return { mode, hits: await notes.search(query, limit, { see }) };
      if (mode === 'semantic') {
        const ps = await semanticHits(query, limit, see);
        const hits = await Promise.all(ps.map((p) => fromPassage(p, Math.round(p.score * 1e6) / 1e6)));
        return { mode, hits: hits.filter((h): h is RetrievalHit => h !== null) };
      }
      const depth = Math.min(100, Math.max(limit * 2, 20));
      const [lex, sem] = await Promise.all([
        notes.search(query, depth, { see }),
        mode === 'hybrid'
          ? semanticHits(query, depth, see).catch((err: unknown) => {
              logger?.warn('semantic search failed; answering lexical hits', { error: String(err) });
              return null;
            })
          : Promise.resolve([] as PassageHit[]),
      ]);
      const bonus = hintBonus(opts.hint && (!see || see(opts.hint)) ? opts.hint : undefined);
      const hits: RetrievalHit[] = [];
      for (const f of fuse(lex, sem ?? [], bonus, limit)) {
        const score = Math.round(f.score * 1e6) / 1e6;
        if (f.lex) hits.push({ ...f.lex, score, ...(f.sem ? { heading: f.sem.heading } : {}) });
        else {
          const h = await fromPassage(f.sem!, score);
          if (h) hits.push(h);
        }
      }
      return { mode: sem === null ? 'lexical' : mode, hits };
    },

    /**
     * The notes closest to the note at `path` (NOTE_NOT_FOUND when there is none): by meaning when
     * its passages are embedded, else by its links, backlinks and the words of its title. `see`:
     * only the paths it accepts are candidates (the caller checks the note itself is visible).
     */
    async related(
      path: string,
      limit = 10,
      see?: Visibility,
    ): Promise<{ mode: SearchMode; hits: RetrievalHit[] }> {
      const note = await notes.get(path);
      if (semantic?.has(note.path)) {
        const ps = semantic.related(note.path, limit, see);
        const hits = await Promise.all(ps.map((p) => fromPassage(p, Math.round(p.score * 1e6) / 1e6)));
        return { mode: 'semantic', hits: hits.filter((h): h is RetrievalHit => h !== null) };
      }
      return { mode: 'lexical', hits: await relatedByLinks(notes, note, limit, see) };
    },

    /** The passage of each hit that answers `q` best, for citing (path, heading, text). */
    async cite(hits: RetrievalHit[], q: string): Promise<Cited[]> {
      const out: Cited[] = [];
      for (const h of hits) {
        const c = await bestPassage(notes, h.path, q, h.heading);
        if (c) out.push(c);
      }
      return out;
    },
  };
}

export type Retrieval = ReturnType<typeof createRetrieval>;

/**
 * Lexical and semantic hits fused by reciprocal rank, `bonus` added to the notes it names, best
 * first, at most `limit`.
 */
function fuse(
  lex: SearchHit[],
  sem: PassageHit[],
  bonus: Map<string, number>,
  limit: number,
): { score: number; lex?: SearchHit; sem?: PassageHit }[] {
  const fused = new Map<string, { score: number; lex?: SearchHit; sem?: PassageHit }>();
  lex.forEach((h, i) => {
    fused.set(h.path, { score: 1 / (RRF_K + i + 1), lex: h });
  });
  sem.forEach((p, i) => {
    const f = fused.get(p.path) ?? { score: 0 };
    f.score += 1 / (RRF_K + i + 1);
    f.sem = p;
    fused.set(p.path, f);
  });
  for (const [path, b] of bonus) {
    const f = fused.get(path);
    if (f) f.score += b;
  }
  return [...fused]
    .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([, f]) => f);
}

/**
 * The notes closest to `note` without vectors: its links and backlinks, and the notes the words
 * of its title and tags find, fused by reciprocal rank. `see`: only the paths it accepts.
 */
async function relatedByLinks(
  notes: NoteService,
  note: Note,
  limit: number,
  see?: Visibility,
): Promise<RetrievalHit[]> {
  const scores = new Map<string, number>();
  const add = (p: string, s: number): void => {
    if (p !== note.path && (!see || see(p))) scores.set(p, (scores.get(p) ?? 0) + s);
  };
  for (const l of note.links) if (l.path?.endsWith('.md')) add(l.path, 1 / (RRF_K + 1));
  for (const b of note.backlinks) add(b.path, 1 / (RRF_K + 1));
  const words = [note.title, ...note.tags].join(' ').trim();
  const lexical = words ? await notes.search(words, 20, { see }).catch(() => []) : [];
  lexical.forEach((h, i) => {
    add(h.path, 1 / (RRF_K + i + 1));
  });
  const hits: RetrievalHit[] = [];
  for (const [p, s] of [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, limit)) {
    const sum = notes.indexedSummary(p);
    if (sum)
      hits.push({
        path: p,
        title: sum.title,
        snippet: '',
        score: Math.round(s * 1e6) / 1e6,
        tags: sum.tags,
        type: 'note',
      });
  }
  return hits;
}
