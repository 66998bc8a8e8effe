import type { StoredIdentity } from '../../core/identity.ts';
import { relayConnector } from '../../relay/connector/connector.ts';
import { createRelayApp } from '../../relay/http/app.ts';
import { memoryRelayQueue } from '../../relay/queue/memory.ts';
import type { RelayQueue } from '../../relay/queue/ports.ts';
import type { RelayLimits } from '../../relay/service/types.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';
import { newIdentity, pairing, registerBody } from './fixtures.ts';

export const PUBLIC = 'https://relay.test';

/** A relay app over a memory queue (or `queue`), called without a socket via `app.request`. */
export function relayHarness(opts: { limits?: Partial<RelayLimits>; queue?: RelayQueue } = {}) {
  const inner = opts.queue ?? memoryRelayQueue();
  let enqueued = 0;
  const queue: RelayQueue = {
    ...inner,
    async enqueue(...args) {
      const ok = await inner.enqueue(...args);
      if (ok) enqueued += 1;
      return ok;
    },
  };
  const app = createRelayApp({
    queue,
    publicBaseUrl: `${PUBLIC}/`,
    logger: silentLogger,
    limits: opts.limits,
    clientAddress: (c) => c.req.header('x-test-client') ?? '203.0.113.1',
  });
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body instanceof Uint8Array) init.body = body as Uint8Array<ArrayBuffer>;
    else if (typeof body === 'string') init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const res = await app.request(path, init);
    const bytes = new Uint8Array(await res.arrayBuffer());
    let json: any = null;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch {}
    return { status: res.status, headers: res.headers, json, bytes };
  }
  /** Registers a fresh identity (or `who`): the serverId, the session secret and the answer. */
  async function register(
    who?: { identity: StoredIdentity; serverId: string },
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    const id = who ?? (await newIdentity());
    const body = await registerBody(id, extra);
    const res = await call('POST', '/api/v1/relay/register', body, headers);
    return { ...id, secret: body.secret, res };
  }
  return {
    app,
    queue: inner,
    register,
    /** Requests accepted into the queue so far. */
    enqueued: () => enqueued,
    call,
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    /** A fetch for the connector that reaches this app in-process. */
    fetch: (url: string, init: RequestInit) => app.request(url, init),
    close: () => inner.close(),
  };
}

/**
 * `app` reached through an in-process relay by a real connector that hands it each request as
 * relayed: the server id, the relay's own `request` for `/r/<serverId>…` paths, and the stop.
 */
export async function throughRelay(app: {
  fetch(req: Request, env: { relayed: true }): Response | Promise<Response>;
}) {
  const h = relayHarness({ limits: { pullWaitMs: 300 } });
  const { identity, serverId } = await newIdentity();
  const pair = pairing();
  const connector = relayConnector({
    relayUrl: PUBLIC,
    serverId,
    identity,
    handle: (req) => Promise.resolve(app.fetch(req, { relayed: true })),
    redeemPairCode: pair.redeemPairCode,
    pairCodeHash: pair.pairCodeHash,
    logger: silentLogger,
    fetch: h.fetch,
    backoff: { minMs: 10, maxMs: 100 },
  });
  connector.start();
  await until('the connector to be online', () => connector.status().state === 'online');
  return {
    serverId,
    request: (path: string, init?: RequestInit) => h.app.request(`/r/${serverId}${path}`, init),
    async stop() {
      await connector.stop();
      await h.close();
    },
  };
}
