import type { Context } from 'hono';
import type { NoteSummary } from '../../../core/notes/note-index.ts';
import { answerEncoding, loadZlib } from '../compression.ts';
import { sealedResponse } from '../frame.ts';
import { type EncodedAnswer, encodeAnswer, JSON_TYPE, sendAnswer } from '../json-answer.ts';
import { createCompressedList } from './compressed-list.ts';
import type { ListStore } from './persisted-list.ts';

/**
 * The whole note list: `GET /notes` with no query, by a key that sees the whole vault; the answer
 * every client of the vault asks for first. Two ways to give it, the same JSON either way
 * (tests/http/list-chunks.test.ts holds them equal):
 * - `plainFullList`: encoded whole once per index version and compressed as any large answer;
 * - `chunkedFullList` (LIST_CHUNKS, the default): the accelerator of this folder, content-defined
 *   chunks deflated once each, so a write re-encodes one chunk, kept across restarts so a warm
 *   start answers its first list without building a summary (decision 0032 has the figures).
 */
export interface FullList {
  /**
   * The answer for index version `generation`, whose summaries `items` builds (called only when
   * they are needed), with the route's `headers` (ETag, caching, Vary).
   */
  send(
    c: Context,
    generation: number,
    items: () => readonly NoteSummary[],
    headers: Record<string, string>,
  ): Promise<Response>;
}

/** The list encoded whole once per index version: the plain way (LIST_CHUNKS=0). */
export function plainFullList(): FullList {
  let kept: { generation: number; answer: EncodedAnswer } | null = null;
  return {
    send(c, generation, items, headers) {
      if (kept?.generation !== generation) kept = { generation, answer: encodeAnswer(items()) };
      return sendAnswer(c, kept.answer, headers);
    },
  };
}

/** The list in deflated chunks (adapters/http/list/compressed-list.ts), kept in `store` across restarts. */
export function chunkedFullList(
  opts: Parameters<typeof createCompressedList>[0] & { store?: ListStore },
): FullList {
  const list = createCompressedList(opts);
  return {
    async send(c, generation, items, headers) {
      // The items are built only when the persisted list cannot answer whole (a warm start's first list).
      list.update(generation, items);
      const base = { 'Content-Type': JSON_TYPE, ...headers };
      const enc = answerEncoding(c);
      const z = enc === 'identity' ? null : await loadZlib();
      if (z && enc === 'br') {
        const br = list.brotli(z);
        if (br) return sealedResponse(c, 200, br, { ...base, 'Content-Encoding': 'br' });
      }
      if (z) return sealedResponse(c, 200, await list.gzipAsync(z), { ...base, 'Content-Encoding': 'gzip' });
      // Inflated from the gzip answer when there is one (the list is kept deflated only).
      const zl = c.get('compress') === false ? null : await loadZlib();
      return sealedResponse(c, 200, zl ? await list.identityAsync(zl) : list.identity(), base);
    },
  };
}
