import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { constantTimeEqual } from '../../../core/crypto.ts';
import { DomainError } from '../../../core/errors.ts';
import { registerStatement, serverIdOf, verifySignature } from '../../../core/identity.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import {
  PullBody,
  RegisterBody,
  type RegisterData,
  RespondBody,
  UnregisterBody,
} from '../../protocol/messages.ts';
import { linkSignals } from '../../protocol/signals.ts';
import { retryLater } from '../../service/errors.ts';
import { OFFLINE_ANSWER } from '../../service/forward.ts';
import type { RelayContext, RelayEnv } from '../../service/types.ts';

/** How far a register statement's time may be from the relay's clock. */
const STATEMENT_SKEW_MS = 120_000;

/** The server-facing routes: register, unregister, pull, respond. */
export function serverRoutes(ctx: RelayContext) {
  const app = new Hono<RelayEnv>();
  const { queue, limits } = ctx;

  // Every pull and respond proves its secret: a synchronous digest skips a thread-pool hop.
  const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

  /**
   * Checks a register's proof: the serverId is the one the public key names, the statement is
   * signed by that key, recent (2 minutes either way) and not seen before. No pin is consulted,
   * so the check holds after any restart, on any instance, with any store. 403 otherwise.
   */
  async function proveIdentity(
    serverId: string,
    publicKey: string,
    proof: { at: number; nonce: string; signature: string },
    secretHash: string,
  ): Promise<void> {
    if ((await serverIdOf(publicKey)) !== serverId)
      throw new DomainError('FORBIDDEN', 'This serverId is not the one the public key names.');
    if (Math.abs(ctx.clock.now() - proof.at) > STATEMENT_SKEW_MS)
      throw new DomainError(
        'FORBIDDEN',
        "The registration statement is too old or from the future; check the server's clock.",
      );
    const statement = registerStatement(serverId, publicKey, proof.at, proof.nonce, secretHash);
    if (!(await verifySignature(publicKey, statement, proof.signature)))
      throw new DomainError('FORBIDDEN', 'The registration statement is not signed by that key.');
    if ((await queue.hit(`nonce:${serverId}:${proof.nonce}`, 2 * STATEMENT_SKEW_MS + 1_000)) > 1)
      throw new DomainError('FORBIDDEN', 'This registration statement was already used.');
  }

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
    const { serverId } = body;
    await proveIdentity(serverId, body.publicKey, body.proof, digest(body.secret));
    // Sessions never expire, so new serverIds are what a flood would pile up: limit them per client.
    const limitKey = `register:${ctx.clientAddress(c) ?? 'unknown'}`;
    const known = (await queue.owner(serverId)) !== null;
    if (!known) {
      const { count, resetInMs } = await queue.hits(limitKey);
      if (count >= limits.newServersPerClientHour)
        throw retryLater(
          'RATE_LIMITED',
          'Too many new servers registered from this address.',
          resetInMs / 1000,
        );
      await queue.hit(limitKey, 3_600_000);
    }
    // The key was proven: this registration's secret replaces any earlier one.
    await queue.setOwner(serverId, digest(body.secret));
    const claim = known ? 'match' : 'created';
    let pairCodeAccepted: boolean | null = null;
    if (body.pairCodeHash !== undefined)
      pairCodeAccepted = await queue.setPairCode(body.serverId, body.pairCodeHash, limits.pairCodeTtlMs);
    await queue.markOnline(body.serverId, limits.offlineAfterMs);
    ctx.logger.info('relay register', { serverId, pin: claim });
    const data: RegisterData = {
      serverId,
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
