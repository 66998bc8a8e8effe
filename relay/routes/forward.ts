import type { Context } from 'hono';
import { DomainError } from '../../core/errors.ts';
import { retryLater } from '../errors.ts';
import type { RelayAnswer } from '../protocol.ts';
import type { RelayContext } from '../types.ts';

/** The item fields the relay fills in; `forward` adds requestId and deadline. */
export type ItemDraft =
  | { kind: 'http'; method: string; path: string; headers: [string, string][]; body: string | null }
  | { kind: 'pair'; code: string };

/**
 * Queues `draft` for `serverId` and waits for the answer until the deadline: 503 SERVER_OFFLINE
 * when the server is not connected, 503 NOT_READY when its queue is full, 504 RELAY_TIMEOUT
 * when no answer came in time (the request is then cancelled, so it is never handed out late).
 * Returns null only when the client went away.
 */
export async function forward(
  ctx: RelayContext,
  c: Context,
  serverId: string,
  draft: ItemDraft,
): Promise<{ requestId: string; answer: RelayAnswer } | null> {
  if (!(await ctx.queue.isOnline(serverId)))
    throw new DomainError(
      'SERVER_OFFLINE',
      'That server is not connected to the relay right now; try again later.',
    );
  const requestId = ctx.newId();
  const deadline = ctx.clock.now() + ctx.limits.answerTimeoutMs;
  const payload = await ctx.seal.seal(JSON.stringify({ ...draft, requestId, deadline }));
  if (!(await ctx.queue.enqueue(serverId, { requestId, deadline, payload }, ctx.limits.maxQueue))) {
    throw retryLater('NOT_READY', 'That server has too many requests waiting; retry shortly.', 1);
  }
  // Not ended by `ctx.closing`: a shutting-down instance still lets waiting clients finish.
  let text: string | null = null;
  try {
    text = await ctx.queue.awaitAnswer(serverId, requestId, deadline - ctx.clock.now(), c.req.raw.signal);
  } finally {
    if (text === null) await ctx.queue.cancel(serverId, requestId).catch(() => undefined);
  }
  if (text === null) {
    if (c.req.raw.signal.aborted) return null;
    throw new DomainError(
      'RELAY_TIMEOUT',
      `The server did not answer within ${ctx.limits.answerTimeoutMs} ms; try again later.`,
    );
  }
  const answer = JSON.parse(await ctx.seal.open(text)) as RelayAnswer;
  if (answer.kind !== draft.kind)
    throw new Error(`server answered a ${draft.kind} item with a ${answer.kind} answer`);
  return { requestId, answer };
}
