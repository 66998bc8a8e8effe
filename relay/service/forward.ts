import type { ErrorCode } from '../../core/errors.ts';
import { DomainError } from '../../core/errors.ts';
import { errorBody } from '../../http-kit/envelope.ts';
import { requestHead } from '../protocol/frames.ts';
import { toBase64 } from '../protocol/http-codec.ts';
import type { HttpAnswer, RelayAnswer } from '../protocol/messages.ts';
import { readBody } from './body-stream.ts';
import { retryLater } from './errors.ts';
import type { ClientGone, Tunnel } from './hub-link.ts';
import type { RelayContext } from './types.ts';

/** The item fields the relay fills in; `forward` adds requestId and deadline. */
export type ItemDraft =
  | {
      kind: 'http';
      method: string;
      path: string;
      headers: [string, string][];
      /** Whole bytes, or the body as it arrives (streamed down a tunnel, read whole for the queue). */
      bytes: Uint8Array | AsyncIterable<Uint8Array> | null;
    }
  | { kind: 'pair'; code: string };

/** An answer as `forward` returns it: an http answer may carry its body as bytes (from a tunnel). */
export type ForwardAnswer = RelayAnswer | (HttpAnswer & { bytes: Uint8Array | null });

const jsonError = (requestId: string, status: number, code: ErrorCode, message: string) => ({
  kind: 'http' as const,
  requestId,
  status,
  headers: [['content-type', 'application/json; charset=utf-8']] as [string, string][],
  body: null,
  bytes: new TextEncoder().encode(JSON.stringify(errorBody(code, message))),
});

/**
 * Through this instance's tunnel to the server: raw bytes both ways, no queue. Null when the
 * client went away (`gone`: its AbortSignal, or the hot request, which has `whenGone`).
 */
export async function viaTunnel(
  ctx: RelayContext,
  gone: ClientGone,
  tunnel: Tunnel,
  draft: ItemDraft,
): Promise<{ requestId: string; answer: ForwardAnswer } | null> {
  const requestId = ctx.newId();
  const streamed = draft.kind === 'http' && !!draft.bytes && !(draft.bytes instanceof Uint8Array);
  // A streamed body may take up to bodyTimeoutMs to arrive; the answer time starts after it.
  const deadline = ctx.clock.now() + ctx.limits.answerTimeoutMs + (streamed ? ctx.limits.bodyTimeoutMs : 0);
  const a = await tunnel.forward(
    requestHead(draft),
    draft.kind === 'http' ? draft.bytes : null,
    deadline,
    gone,
  );
  if (a?.kind === 'gone') return null;
  if (!a) {
    if (gone instanceof AbortSignal && gone.aborted) return null;
    throw new DomainError(
      'RELAY_TIMEOUT',
      `The server did not answer within ${ctx.limits.answerTimeoutMs} ms (or its connection dropped); the request may have run.`,
    );
  }
  if (a.kind === 'pair') return { requestId, answer: { kind: 'pair', requestId, apiKey: a.apiKey } };
  if (a.kind === 'reset') {
    if (draft.kind === 'pair') return { requestId, answer: { kind: 'pair', requestId, apiKey: null } };
    return { requestId, answer: jsonError(requestId, a.status, a.code, a.message) };
  }
  return {
    requestId,
    answer: { kind: 'http', requestId, status: a.status, headers: a.headers, body: null, bytes: a.bytes },
  };
}

/** The answer the relay itself stores for a request whose server left before pulling it. */
export const OFFLINE_ANSWER = JSON.stringify({ kind: 'offline' });

/** 503 SERVER_OFFLINE: the server is not connected (decided before any body is read). */
export const offline = () =>
  new DomainError('SERVER_OFFLINE', 'That server is not connected to the relay right now; try again later.');

/**
 * Waits for the answer until `deadline`, riding out queue-store errors: once a request is
 * queued it may run, so its client gets the answer or a 504, never a 503 that would wrongly
 * say it did not run. Null on time-out or when `signal` aborts.
 */
async function answerBy(
  ctx: RelayContext,
  serverId: string,
  requestId: string,
  deadline: number,
  signal: AbortSignal,
): Promise<string | null> {
  for (;;) {
    const left = deadline - ctx.clock.now();
    if (left <= 0 || signal.aborted) return null;
    try {
      return await ctx.queue.awaitAnswer(serverId, requestId, left, signal);
    } catch {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, Math.min(250, left));
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }
}

/**
 * Queues `draft` for `serverId` and waits for the answer until the deadline: 503 SERVER_OFFLINE
 * when the server is not connected (or leaves before pulling it), 503 NOT_READY when its queue
 * is full, 504 RELAY_TIMEOUT when no answer came in time (the request is then cancelled, so it
 * is never handed out late). A 503 means the server never saw the request; after a 504 it may
 * have run once. Returns null only when the client went away.
 */
export async function forward(
  ctx: RelayContext,
  signal: AbortSignal,
  serverId: string,
  draft: ItemDraft,
): Promise<{ requestId: string; answer: ForwardAnswer } | null> {
  const tunnel = ctx.tunnels?.get(serverId);
  if (tunnel) return viaTunnel(ctx, signal, tunnel, draft);
  if (!(await ctx.queue.isOnline(serverId))) throw offline();
  // Queue items are whole: a body arriving in chunks is read first (under the door's budgets).
  const body =
    draft.kind === 'http' && draft.bytes && !(draft.bytes instanceof Uint8Array)
      ? await readBody(draft.bytes)
      : draft.kind === 'http'
        ? (draft.bytes as Uint8Array | null)
        : null;
  const requestId = ctx.newId();
  const deadline = ctx.clock.now() + ctx.limits.answerTimeoutMs;
  const item =
    draft.kind === 'http'
      ? {
          kind: 'http',
          method: draft.method,
          path: draft.path,
          headers: draft.headers,
          body: toBase64(body),
        }
      : draft;
  const payload = await ctx.seal.seal(JSON.stringify({ ...item, requestId, deadline }));
  if (!(await ctx.queue.enqueue(serverId, { requestId, deadline, payload }, ctx.limits.maxQueue))) {
    if (!(await ctx.queue.isOnline(serverId))) throw offline(); // it left in between
    throw retryLater('NOT_READY', 'That server has too many requests waiting; retry shortly.', 1);
  }
  // Not ended by `ctx.closing`: a shutting-down instance still lets waiting clients finish.
  let text: string | null = null;
  try {
    text = await answerBy(ctx, serverId, requestId, deadline, signal);
  } finally {
    if (text === null) await ctx.queue.cancel(serverId, requestId).catch(() => undefined);
  }
  if (text === null) {
    if (signal.aborted) return null;
    throw new DomainError(
      'RELAY_TIMEOUT',
      `The server did not answer within ${ctx.limits.answerTimeoutMs} ms; try again later.`,
    );
  }
  const answer = JSON.parse(await ctx.seal.open(text)) as RelayAnswer | { kind: 'offline' };
  if (answer.kind === 'offline') throw offline();
  if (answer.kind !== draft.kind)
    throw new Error(`server answered a ${draft.kind} item with a ${answer.kind} answer`);
  return { requestId, answer };
}
