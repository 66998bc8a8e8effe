import type { ErrorCode } from '../../core/errors.ts';
import type { Logger } from '../../core/ports.ts';
import { errorBody } from '../../http-kit/envelope.ts';
import { fromBase64, headerPairs, toBase64 } from '../protocol/http-codec.ts';
import type { HttpAnswer, HttpItem, PairAnswer, PairItem } from '../protocol/messages.ts';

const errorAnswer = (requestId: string, status: number, code: ErrorCode, message: string): HttpAnswer => ({
  kind: 'http',
  requestId,
  status,
  headers: [['content-type', 'application/json; charset=utf-8']],
  body: toBase64(new TextEncoder().encode(JSON.stringify(errorBody(code, message)))),
});

/** The answer to a relayed item that does not decode: 400, for that request alone. */
export const undecodableAnswer = (requestId: string): HttpAnswer =>
  errorAnswer(requestId, 400, 'VALIDATION_ERROR', 'The relayed request could not be decoded by the server.');

/**
 * Runs one proxied request against `handle` (the server's app, in-process) and encodes its
 * answer. Never throws: a failing handler becomes a 500 answer in the error envelope. When
 * `signal` aborts (the relay's deadline passed) the Request sees it and this resolves to null
 * at once: nobody is waiting for that answer any more.
 */
export async function executeHttp(
  item: HttpItem,
  deps: {
    handle: (req: Request) => Promise<Response>;
    origin: string;
    maxBodyBytes: number;
    logger: Logger;
    signal: AbortSignal;
  },
): Promise<HttpAnswer | null> {
  let req: Request;
  try {
    const headers = new Headers();
    for (const [k, val] of item.headers) headers.append(k, val);
    const hasBody = item.method !== 'GET' && item.method !== 'HEAD';
    const body = hasBody ? (fromBase64(item.body) as Uint8Array<ArrayBuffer> | null) : null;
    // Concatenate rather than resolve: a path like `//host/x` must stay a path.
    req = new Request(`${deps.origin}${item.path}`, {
      method: item.method,
      headers,
      body,
      signal: deps.signal,
    });
  } catch {
    return errorAnswer(
      item.requestId,
      400,
      'VALIDATION_ERROR',
      'The relayed request is not a valid HTTP request.',
    );
  }
  let onAbort = () => {};
  const gaveUp = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    if (deps.signal.aborted) resolve(null);
    deps.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const res = await Promise.race([deps.handle(req), gaveUp]);
    if (!res) return null;
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength > deps.maxBodyBytes) {
      const msg = `The server's answer is larger than the relay's limit of ${deps.maxBodyBytes} bytes.`;
      return errorAnswer(item.requestId, 413, 'PAYLOAD_TOO_LARGE', msg);
    }
    return {
      kind: 'http',
      requestId: item.requestId,
      status: res.status,
      headers: headerPairs(res.headers),
      body: toBase64(bytes),
    };
  } catch (err) {
    if (deps.signal.aborted) return null;
    deps.logger.error('relayed request failed', { error: err instanceof Error ? err.message : String(err) });
    return errorAnswer(item.requestId, 500, 'INTERNAL_ERROR', 'Something went wrong on the server.');
  } finally {
    deps.signal.removeEventListener('abort', onAbort);
  }
}

/** Redeems a pairing code; any failure is a refusal (`apiKey: null`). */
export async function executePair(
  item: PairItem,
  deps: { redeemPairCode: (code: string) => Promise<{ apiKey: string } | null>; logger: Logger },
): Promise<PairAnswer> {
  try {
    const r = await deps.redeemPairCode(item.code);
    return { kind: 'pair', requestId: item.requestId, apiKey: r?.apiKey ?? null };
  } catch (err) {
    deps.logger.error('pairing code redeem failed', {
      error: err instanceof Error ? err.message : String(err),
    });
    return { kind: 'pair', requestId: item.requestId, apiKey: null };
  }
}
