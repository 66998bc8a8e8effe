import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { ok, readJson } from '../../adapters/http/envelope.ts';
import { constantTimeEqual } from '../../core/crypto.ts';
import { DomainError } from '../../core/errors.ts';
import { retryLater } from '../errors.ts';
import { PullBody, RegisterBody, type RegisterData, RespondBody, UnregisterBody } from '../protocol.ts';
import { linkSignals } from '../signals.ts';
import type { RelayContext, RelayEnv } from '../types.ts';
import { OFFLINE_ANSWER } from './forward.ts';

/** The server-facing routes: register, unregister, pull, respond. */
export function serverRoutes(ctx: RelayContext) {
  const app = new Hono<RelayEnv>();
  const { queue, limits } = ctx;

  // Every pull and respond proves its secret: a synchronous digest skips a thread-pool hop.
  const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

  /** Proves the caller holds the secret pinned for `serverId`: 401 unknown, 403 another secret. */
  async function prove(serverId: string, secret: string): Promise<void> {
    const pinned = await queue.owner(serverId);
    if (pinned === null)
      throw new DomainError(
        'UNAUTHORIZED',
        'This serverId is not registered with the relay; register first.',
      );
    if (!constantTimeEqual(pinned, digest(secret)))
      throw new DomainError('FORBIDDEN', 'This serverId is registered with a different secret.');
  }

  app.post('/register', async (c) => {
    const body = await readJson(c, RegisterBody);
    // Pins never expire, so new ones are what a flood would pile up: limit them per client.
    const limitKey = `register:${ctx.clientAddress(c) ?? 'unknown'}`;
    if ((await queue.owner(body.serverId)) === null) {
      const { count, resetInMs } = await queue.hits(limitKey);
      if (count >= limits.newServersPerClientHour)
        throw retryLater(
          'RATE_LIMITED',
          'Too many new servers registered from this address.',
          resetInMs / 1000,
        );
    }
    const claim = await queue.claim(body.serverId, digest(body.secret));
    if (claim === 'created') await queue.hit(limitKey, 3_600_000);
    if (claim === 'mismatch')
      throw new DomainError('FORBIDDEN', 'This serverId is registered with a different secret.');
    let pairCodeAccepted: boolean | null = null;
    if (body.pairCodeHash !== undefined)
      pairCodeAccepted = await queue.setPairCode(body.serverId, body.pairCodeHash, limits.pairCodeTtlMs);
    await queue.markOnline(body.serverId, limits.offlineAfterMs);
    ctx.logger.info('relay register', { serverId: body.serverId, pin: claim });
    const data: RegisterData = {
      serverId: body.serverId,
      pin: claim === 'created' ? 'created' : 'existing',
      pairCodeAccepted,
      publicUrl: `${ctx.publicBaseUrl}/r/${body.serverId}`,
      limits: {
        maxBodyBytes: limits.maxBodyBytes,
        maxRespondBytes: ctx.maxRespondBytes,
        answerTimeoutMs: limits.answerTimeoutMs,
        pullWaitMs: limits.pullWaitMs,
        maxBatch: limits.maxBatch,
      },
    };
    return ok(c, data);
  });

  app.post('/unregister', async (c) => {
    const body = await readJson(c, UnregisterBody);
    await prove(body.serverId, body.secret);
    // From here on nothing is queued for it; what waits in its queue is answered 503 now.
    await queue.markOffline(body.serverId);
    const gone = await ctx.seal.seal(OFFLINE_ANSWER);
    for (const r of await queue.evict(body.serverId)) await queue.answer(body.serverId, r.requestId, gone);
    await queue.setPairCode(body.serverId, null, 1);
    ctx.logger.info('relay unregister', { serverId: body.serverId });
    return ok(c, { serverId: body.serverId, online: false });
  });

  app.post('/pull', async (c) => {
    const body = await readJson(c, PullBody);
    await prove(body.serverId, body.secret);
    // A pull keeps a server online but never brings it back: after an unregister (or a long
    // silence) only a register does, so a late pull cannot revive a server that is leaving.
    if (!(await queue.refreshOnline(body.serverId, limits.offlineAfterMs)))
      throw new DomainError('UNAUTHORIZED', 'This server is not connected to the relay; register again.');
    const linked = linkSignals([c.req.raw.signal, ctx.closing]);
    const taken = await queue
      .take(body.serverId, {
        max: Math.min(body.max ?? limits.maxBatch, limits.maxBatch),
        maxBytes: ctx.maxRespondBytes,
        waitMs: Math.min(body.waitMs ?? limits.pullWaitMs, limits.pullWaitMs),
        signal: linked.signal,
      })
      .finally(linked.dispose);
    // The payloads are item JSON already: splice them in rather than parse and re-encode.
    const opened = await Promise.all(
      taken.map((t) =>
        ctx.seal.open(t.payload).catch(() => {
          ctx.logger.error('relay payload does not open: do all instances share RELAY_QUEUE_KEY?', {});
          return null;
        }),
      ),
    );
    const items = opened.filter((p) => p !== null).join(',');
    return c.body(`{"success":true,"data":{"now":${ctx.clock.now()},"items":[${items}]}}`, 200, {
      'content-type': 'application/json; charset=utf-8',
    });
  });

  app.post('/respond', async (c) => {
    const body = await readJson(c, RespondBody);
    await prove(body.serverId, body.secret);
    const rejected: string[] = [];
    await Promise.all(
      body.responses.map(async (r) => {
        const sealed = await ctx.seal.seal(JSON.stringify(r));
        if (!(await queue.answer(body.serverId, r.requestId, sealed))) rejected.push(r.requestId);
      }),
    );
    return ok(c, { accepted: body.responses.length - rejected.length, rejected });
  });

  return app;
}
