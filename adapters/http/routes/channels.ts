import { type Context, Hono } from 'hono';
import { CreateChannelBody, ToggleChannelBody, WebMessageBody } from '../../../core/channels/schemas.ts';
import type { ChannelService } from '../../../core/channels/service.ts';
import { isDomainError } from '../../../core/errors.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { clientAddress, serverUrl } from '../client.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv } from '../types.ts';

/** The header that carries a channel's webhook secret (else the `secret` query parameter). */
export const CHANNEL_SECRET_HEADER = 'X-Service-Channel-Secret';

/**
 * `/api/v1/channels`: providers, list, create, toggle, delete, the web channel's messages
 * (protected), and the public webhooks `POST|GET /webhook/:provider`, rate limited per client.
 */
export function channelsRoutes(deps: AppDeps, channels: ChannelService, limiter: RateLimiter) {
  const app = new Hono<AppEnv>();

  /** Where the provider should deliver: on the server, and through the relay when there is one. */
  const webhookUrls = (c: Context, path: string | null, secret: string, placeholder = false) => {
    if (!path) return null;
    const query = `?secret=${placeholder ? secret : encodeURIComponent(secret)}`;
    const relay = deps.setup?.config.pairingMode === 'relay' ? deps.setup.config.relayUrl : null;
    return {
      url: `${serverUrl(c, deps)}${path}${query}`,
      relayUrl: relay && deps.setup ? `${relay}/r/${deps.setup.service.serverId}${path}${query}` : null,
    };
  };

  /** Runs a public webhook call under the per-client limits; a wrong secret counts as a failed authentication. */
  const guarded = async <T>(c: Context<AppEnv>, fn: () => Promise<T>): Promise<T> => {
    const client = clientAddress(c, deps);
    await limiter.webhook(client);
    try {
      return await fn();
    } catch (err) {
      // Failures only: a right secret passes even from an address others have failed from.
      if (isDomainError(err) && (err.code === 'UNAUTHORIZED' || err.code === 'FORBIDDEN')) {
        await limiter.beforeAuth(client);
        await limiter.failed(client);
      }
      throw err;
    }
  };
  const secretOf = (c: Context) => c.req.header(CHANNEL_SECRET_HEADER) ?? c.req.query('secret');

  app.post('/webhook/:provider', (c) =>
    guarded(c, async () => {
      const result = await channels.webhook(c.req.param('provider'), {
        secret: secretOf(c),
        telegramSecretToken: c.req.header('x-telegram-bot-api-secret-token'),
        hubSignature: c.req.header('x-hub-signature-256'),
        body: new Uint8Array(await c.req.arrayBuffer()),
      });
      return ok(c, result);
    }),
  );
  app.get('/webhook/:provider', (c) =>
    guarded(c, async () => {
      const challenge = await channels.handshake(c.req.param('provider'), {
        secret: secretOf(c),
        mode: c.req.query('hub.mode'),
        verifyToken: c.req.query('hub.verify_token'),
        challenge: c.req.query('hub.challenge'),
      });
      c.header('Cache-Control', 'no-store');
      return c.text(challenge, 200);
    }),
  );

  app.get('/providers', (c) =>
    ok(
      c,
      channels.providers().map((p) => ({
        ...p,
        webhook: p.webhook ? { ...p.webhook, ...webhookUrls(c, p.webhook.path, '{secret}', true) } : null,
      })),
    ),
  );
  app.get('/', (c) => ok(c, channels.list()));
  app.post('/', async (c) => {
    const body = await readJson(c, CreateChannelBody);
    const created = await channels.create(body);
    c.header('Cache-Control', 'no-store');
    return ok(
      c,
      {
        ...created,
        webhook: webhookUrls(c, created.channel.webhookPath, created.webhookSecret),
        notice: 'The webhook secret is shown only now; store it where you configure the provider.',
      },
      201,
    );
  });
  app.get('/:id', (c) => ok(c, channels.get(c.req.param('id'))));
  app.post('/:id/toggle', async (c) => {
    // No body (or an empty one) flips the channel; `{"enabled": bool}` sets it.
    const text = await c.req.text();
    const body = text.trim() === '' ? {} : await readJson(c, ToggleChannelBody);
    return ok(c, await channels.toggle(c.req.param('id'), body.enabled));
  });
  app.delete('/:id', async (c) => ok(c, await channels.remove(c.req.param('id'))));
  app.get('/:id/messages', async (c) => ok(c, await channels.history(c.req.param('id'))));
  app.post('/:id/messages', async (c) => {
    const body = await readJson(c, WebMessageBody);
    const reply = await channels.message(c.req.param('id'), { ...body, signal: c.req.raw.signal });
    return ok(c, reply);
  });
  return app;
}
