import { Hono } from 'hono';
import { createApp } from '../../adapters/http/app.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import {
  createIdentity,
  identitySigner,
  registerStatement,
  type StoredIdentity,
  serverIdOf,
} from '../../core/identity.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { sha256 } from './helpers.ts';

const randomPart = (bytes = 32) =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(bytes))))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A fresh relay secret. */
export const newSecret = () => randomPart(32);

/**
 * A real pairing-code redeemer like the server's: one current code, single use, a lifetime,
 * rotated after each successful redeem; minted keys are remembered so a handler can check them.
 */
export function pairing(opts: { lifetimeMs?: number; now?: () => number } = {}) {
  const now = opts.now ?? Date.now;
  const lifetime = opts.lifetimeMs ?? 15 * 60_000;
  let code = randomPart(12);
  let issuedAt = now();
  const keys = new Set<string>();
  return {
    keys,
    /** The code a setup payload would show now. */
    code: () => code,
    pairCodeHash: async () => sha256(code),
    async redeemPairCode(given: string): Promise<{ apiKey: string } | null> {
      if (given !== code || now() - issuedAt > lifetime) return null;
      code = randomPart(12);
      issuedAt = now();
      const apiKey = `quire_sk_${randomPart(32)}`;
      keys.add(apiKey);
      return { apiKey };
    },
    /** Makes the current code older than its lifetime. */
    age() {
      issuedAt = -Infinity;
    },
  };
}

/** A small server app exercising what a relay must carry; counts calls per path. */
export function smallApp() {
  const calls = new Map<string, number>();
  const app = new Hono();
  app.use(async (c, next) => {
    calls.set(c.req.path, (calls.get(c.req.path) ?? 0) + 1);
    await next();
  });
  app.get('/api/v1/n/:n', (c) => c.json({ n: Number(c.req.param('n')) }));
  app.all('/api/v1/echo/*', async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    return c.body(body, 200, {
      'x-method': c.req.method,
      'x-path': new URL(c.req.url).pathname + new URL(c.req.url).search,
      'x-seen-headers': [...c.req.raw.headers.keys()].sort().join(','),
      'x-forwarded-prefix-seen': c.req.header('x-forwarded-prefix') ?? '',
      'content-type': 'application/octet-stream',
    });
  });
  app.get('/api/v1/cookies', (c) => {
    c.header('set-cookie', 'a=1; Path=/; HttpOnly', { append: true });
    c.header('set-cookie', 'b=2; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT', { append: true });
    c.header('connection', 'x-secret-hop');
    c.header('x-secret-hop', 'dropped');
    return c.json({ ok: true });
  });
  app.get('/api/v1/binary', (c) =>
    c.body(
      Uint8Array.from({ length: 256 }, (_, i) => i),
      200,
      { 'content-type': 'application/octet-stream' },
    ),
  );
  app.get('/api/v1/slow', async (c) => {
    await new Promise((r) => setTimeout(r, Number(c.req.query('ms') ?? 100)));
    return c.json({ slow: true });
  });
  app.get('/api/v1/boom', () => {
    throw new Error('boom');
  });
  app.onError((_err, c) =>
    c.json({ success: false, error: { code: 'INTERNAL_ERROR', message: 'boom' } }, 500),
  );
  return { app, calls, handle: async (req: Request) => app.fetch(req) };
}

/** The real note server app over an in-memory vault, behind an X-Service-Key check. */
export async function noteServer(keys: Set<string>) {
  const clock = { now: () => Date.now() };
  const notes = createNoteService({ store: memoryNoteStore({ clock }), clock, logger: silentLogger });
  await notes.load();
  const app = createApp({ notes, version: '0.0.0-test', clock, logger: silentLogger });
  return async (req: Request): Promise<Response> => {
    const key = req.headers.get('x-service-key');
    if (!key || !keys.has(key))
      return Response.json(
        { success: false, error: { code: 'UNAUTHORIZED', message: 'key needed' } },
        { status: 401 },
      );
    return app.fetch(req);
  };
}

/** A fresh server identity (Ed25519) and the serverId its public key names. */
export async function newIdentity(): Promise<{ identity: StoredIdentity; serverId: string }> {
  const identity = await createIdentity();
  return { identity, serverId: (await serverIdOf(identity.publicKey)) as string };
}

/**
 * The body of a register, signed by `identity` (a valid statement for `serverId`; pass another
 * serverId to forge one). `extra` is merged in (e.g. pairCodeHash).
 */
export async function registerBody(
  who: { identity: StoredIdentity; serverId: string },
  extra: Record<string, unknown> = {},
  at = Date.now(),
  secret = newSecret(),
) {
  const signer = identitySigner(who.identity);
  const nonce = randomPart(18);
  const hash = await sha256(secret);
  const signature = await signer.sign(registerStatement(who.serverId, signer.publicKey, at, nonce, hash));
  return {
    serverId: who.serverId,
    secret,
    publicKey: signer.publicKey,
    proof: { at, nonce, signature },
    ...extra,
  };
}

type TunnelOptions = Parameters<typeof tunnelConnector>[0];

/**
 * A tunnel connector of a new identity serving `app` through the relay at `relayUrl`, started (not
 * waited for); `stops` gets its stop (within `graceMs`); `over` replaces any option.
 */
export async function startTunnel(
  relayUrl: string,
  app: { handle: TunnelOptions['handle'] },
  stops: (() => unknown)[],
  graceMs = 200,
  over: Partial<TunnelOptions> = {},
) {
  const who = await newIdentity();
  const connector = tunnelConnector({
    relayUrl,
    serverId: who.serverId,
    identity: who.identity,
    handle: app.handle,
    redeemPairCode: pairing().redeemPairCode,
    logger: silentLogger,
    backoff: { minMs: 20, maxMs: 200 },
    ...over,
  });
  connector.start();
  stops.push(() => connector.stop(graceMs));
  const online = () => until('the tunnel to be online', () => connector.status().state === 'online', 10_000);
  return { connector, online, ...who };
}

/** `startTunnel`, once online. */
export async function onlineTunnel(
  relayUrl: string,
  app: { handle: TunnelOptions['handle'] },
  stops: (() => unknown)[],
  graceMs = 200,
) {
  const { connector, online, ...who } = await startTunnel(relayUrl, app, stops, graceMs);
  await online();
  return { connector, ...who };
}
