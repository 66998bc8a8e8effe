import { Hono } from 'hono';
import { sha256Hex } from '../../../core/crypto.ts';
import { DomainError } from '../../../core/errors.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { ExchangeBody, type PairAnswer } from '../../protocol/messages.ts';
import { retryLater } from '../../service/errors.ts';
import { forward } from '../../service/forward.ts';
import type { RelayContext, RelayEnv } from '../../service/types.ts';

const invalidCode = () =>
  new DomainError(
    'UNAUTHORIZED',
    'The pairing code is not valid: it may be mistyped, expired or already used.',
  );

/**
 * `POST /api/v1/pair/exchange {code}`: finds the server by the code's hash, hands the code to
 * that server through its queue, and returns the key it mints. The key passes through; the
 * relay keeps nothing of it. Failures count against the client address and the serverId.
 */
export function pairRoutes(ctx: RelayContext) {
  const app = new Hono<RelayEnv>();
  const { queue, limits } = ctx;

  async function refuseIfLimited(key: string, max: number) {
    const { count, resetInMs } = await queue.hits(key);
    if (count >= max)
      throw retryLater(
        'RATE_LIMITED',
        'Too many failed pairing attempts; wait before trying again.',
        resetInMs / 1000,
      );
  }
  const fail = (keys: string[]) => Promise.all(keys.map((k) => queue.hit(k, limits.pairFailureWindowMs)));

  app.post('/exchange', async (c) => {
    const body = await readJson(c, ExchangeBody);
    const clientKey = `pair:client:${ctx.clientAddress(c) ?? 'unknown'}`;
    await refuseIfLimited(clientKey, limits.pairFailuresPerClient);
    const code = body.code.trim();
    const hash = await sha256Hex(code);
    const serverId = await queue.findPairCode(hash);
    if (!serverId) {
      await fail([clientKey]);
      throw invalidCode();
    }
    const serverKey = `pair:server:${serverId}`;
    await refuseIfLimited(serverKey, limits.pairFailuresPerServer);
    const done = await forward(ctx, c.req.raw.signal, serverId, { kind: 'pair', code });
    if (!done) return new Response(null, { status: 499 });
    const apiKey = (done.answer as PairAnswer).apiKey;
    if (!apiKey) {
      await fail([clientKey, serverKey]);
      throw invalidCode();
    }
    await queue.spendPairCode(hash, serverId);
    ctx.logger.info('relay pair exchange', { serverId });
    const serverUrl = `${ctx.publicBaseUrl}/r/${serverId}`;
    return ok(c, { serverId, serverUrl, apiKey }, 200, { 'cache-control': 'no-store' });
  });

  return app;
}
