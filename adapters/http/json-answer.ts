import type { Context } from 'hono';
import { answerEncoding, loadZlib } from './compression.ts';
import { sealedResponse } from './frame.ts';

/** Answers below this size are sent as they are (compression would not pay). */
const MIN_COMPRESS = 1024;
/** Answers from this size on are compressed on the thread pool, not on the event loop. */
const ASYNC_COMPRESS = 64 * 1024;
const encoder = new TextEncoder();
export const JSON_TYPE = 'application/json; charset=UTF-8';

/** One encoded answer in each encoding asked for so far. */
export interface EncodedAnswer {
  identity: Uint8Array<ArrayBuffer>;
  gzip?: Uint8Array<ArrayBuffer>;
  br?: Uint8Array<ArrayBuffer>;
}

/**
 * Encodes a success envelope around `data` once (with `extra` top-level members, e.g. `page`);
 * the compressed forms are added when asked.
 */
export function encodeAnswer(data: unknown, extra?: Record<string, unknown>): EncodedAnswer {
  return { identity: encoder.encode(JSON.stringify({ success: true, data, ...extra })) };
}

/**
 * Answers `answer` compressed per `Accept-Encoding` (br or gzip; `Vary: Accept-Encoding`) when it
 * is large enough, keeping the compressed bytes on `answer` so a cached answer is compressed
 * once.
 */
export async function sendAnswer(
  c: Context,
  answer: EncodedAnswer,
  headers: Record<string, string> = {},
): Promise<Response> {
  const base = { 'Content-Type': JSON_TYPE, Vary: 'Accept-Encoding', ...headers };
  const enc = answerEncoding(c);
  if (enc === 'identity' || answer.identity.length < MIN_COMPRESS) {
    return sealedResponse(c, 200, answer.identity, base);
  }
  const z = await loadZlib();
  if (!z) return sealedResponse(c, 200, answer.identity, base);
  const big = answer.identity.length >= ASYNC_COMPRESS;
  if (enc === 'br') {
    const opts = { params: { [z.constants.BROTLI_PARAM_QUALITY]: 4 } };
    answer.br ??= new Uint8Array(
      big
        ? await new Promise<Buffer>((ok, fail) =>
            z.brotliCompress(answer.identity, opts, (err, out) => (err ? fail(err) : ok(out))),
          )
        : z.brotliCompressSync(answer.identity, opts),
    );
    return sealedResponse(c, 200, answer.br, { ...base, 'Content-Encoding': 'br' });
  }
  answer.gzip ??= new Uint8Array(
    big
      ? await new Promise<Buffer>((ok, fail) =>
          z.gzip(answer.identity, { level: 6 }, (err, out) => (err ? fail(err) : ok(out))),
        )
      : z.gzipSync(answer.identity, { level: 6 }),
  );
  return sealedResponse(c, 200, answer.gzip, { ...base, 'Content-Encoding': 'gzip' });
}

/**
 * Encoded answers keyed by a string, valid for one generation of the index: the first request
 * after a change fills it again. Bounded in entries (oldest dropped).
 */
export function createAnswerMemo(max = 64) {
  let generation = -1;
  const map = new Map<string, EncodedAnswer>();
  return {
    get(gen: number, key: string, build: () => unknown): EncodedAnswer {
      if (gen !== generation) {
        map.clear();
        generation = gen;
      }
      let a = map.get(key);
      if (!a) {
        a = encodeAnswer(build());
        map.set(key, a);
        if (map.size > max) map.delete(map.keys().next().value!);
      }
      return a;
    },
  };
}
