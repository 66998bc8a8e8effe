/**
 * What a search takes, checked once at the edge: the REST routes run `SearchParams` and
 * `RelatedParams` on their query strings, MCP's `search_notes` runs `SearchNotesInput`; the
 * retrieval and the note service trust their typed output (core/schemas.ts `checkBody` answers
 * 400 VALIDATION_ERROR naming the field).
 */
import * as v from 'valibot';

/** How a search ranks: words, meaning, or both. */
export const SEARCH_MODES = ['lexical', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Most hits one search answers. */
export const MAX_SEARCH_LIMIT = 100;
/** Most characters of a query read (the rest is left out). */
export const MAX_QUERY_CHARS = 500;

const LIMIT = `must be an integer from 1 to ${MAX_SEARCH_LIMIT}.`;
const MODE = 'must be lexical, semantic or hybrid.';
const QUERY = 'give a search query (words or a question).';

/** A number of hits, as MCP sends it. */
const limitNumber = v.pipe(
  v.number(LIMIT),
  v.integer(LIMIT),
  v.minValue(1, LIMIT),
  v.maxValue(MAX_SEARCH_LIMIT, LIMIT),
);
/** A number of hits, as a query string gives it (`limit=20`). */
const limitParam = v.pipe(v.string(LIMIT), v.transform(Number), limitNumber);
const mode = v.picklist(SEARCH_MODES, MODE);
/** `mode=` left empty is the default mode, as when absent. */
const modeParam = v.pipe(
  v.union([v.literal(''), mode], MODE),
  v.transform((m) => (m === '' ? undefined : m)),
);
/** Some character that is not white space (valibot's own action: nothing of ours runs per request). */
const notBlank = v.regex(/\S/, QUERY);

/** The query of `GET /api/v1/search?q=&limit=&mode=` (other parameters are ignored). */
export const SearchParams = v.object({
  q: v.pipe(v.optional(v.string(QUERY), ''), notBlank),
  limit: v.optional(limitParam),
  mode: v.optional(modeParam),
});

/** The query of `GET /api/v1/notes/:path/related?limit=`. */
export const RelatedParams = v.object({ limit: v.optional(limitParam) });

/** A plugin's `notes.search(q, limit)` (core/plugins/host.ts): plugin code is an edge too. */
export const SearchArgs = v.object({
  q: v.pipe(v.string(QUERY), notBlank),
  limit: v.optional(limitNumber),
});

/** The input of MCP's `search_notes` tool (its JSON schema is generated from this one). */
export const SearchNotesInput = v.strictObject({
  query: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(MAX_QUERY_CHARS),
    notBlank,
    v.description(
      'A question or words. Syntax: words (any may match; notes with more of them rank first; typos and the last word as a prefix are tolerated), "exact phrase", -word, a OR b, tag:name, path:folder, file:name.',
    ),
  ),
  limit: v.optional(limitNumber),
  mode: v.optional(
    v.pipe(
      mode,
      v.description(
        'lexical (words), semantic (meaning; needs EMBEDDINGS_URL) or hybrid (both fused); default hybrid when semantic search is on, else lexical.',
      ),
    ),
  ),
});
