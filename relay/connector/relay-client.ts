import * as v from 'valibot';
import { sha256Hex, toBase64Url } from '../../core/crypto.ts';
import { identitySigner, registerStatement, type StoredIdentity } from '../../core/identity.ts';
import {
  HttpItem,
  PairItem,
  type RegisterData,
  type RelayAnswer,
  type RelayItem,
} from '../protocol/messages.ts';
import type { FetchLike, RelayHttpAnswer } from './fetch-like.ts';
import { nodeTransport } from './node-transport.ts';

export type { FetchLike, RelayHttpAnswer } from './fetch-like.ts';

/**
 * Why a relay call failed. `unregistered` (401): register again. `refused` (403): another
 * secret owns this serverId. `rejected`: the relay refused the body (a bug; not retried).
 * `unavailable`: network error, time-out, 5xx or 429: retry with backoff.
 */
export class RelayCallError extends Error {
  constructor(
    readonly kind: 'unregistered' | 'refused' | 'rejected' | 'unavailable',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RelayCallError';
  }
}

/** The server side of the relay protocol: one method per relay endpoint. */
export function relayClient(opts: {
  relayUrl: string;
  serverId: string;
  identity: StoredIdentity;
  fetch?: FetchLike;
}) {
  const base = opts.relayUrl.replace(/\/+$/, '');
  const fetchFn: FetchLike = opts.fetch ?? nodeTransport();
  const signer = identitySigner(opts.identity);
  // This connector's session secret: registered (with the key's proof), then proven by
  // pull, respond and unregister. Stable for the connector's life, so a re-register (a new
  // pairing code, a relay that forgot us) never invalidates calls already in flight.
  const session = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const sessionHash = sha256Hex(session);

  async function call(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    let res: RelayHttpAnswer;
    try {
      res = await fetchFn(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ serverId: opts.serverId, ...body }),
        signal,
      });
    } catch (err) {
      throw new RelayCallError(
        'unavailable',
        `relay unreachable: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    let json: { success?: boolean; data?: unknown; error?: { code?: string; message?: string } } | null =
      null;
    try {
      json = JSON.parse(await res.text());
    } catch {
      json = null;
    }
    if (res.ok && json?.success === true) return json.data;
    const why = `relay answered ${res.status} ${json?.error?.code ?? ''}: ${json?.error?.message ?? 'no envelope'}`;
    if (res.status === 401) throw new RelayCallError('unregistered', why, res.status);
    // A 403 on a session call: another register (a second process with this key) replaced
    // our secret: register again (with backoff after the first time).
    if (res.status === 403)
      throw new RelayCallError(path.endsWith('/register') ? 'refused' : 'unregistered', why, res.status);
    const retry = res.status >= 500 || res.status === 429 || res.status === 408 || json === null;
    throw new RelayCallError(retry ? 'unavailable' : 'rejected', why, res.status);
  }

  return {
    /** Registers (idempotent); `pairCodeHash`: undefined keeps, null clears, a hash replaces. */
    async register(pairCodeHash: string | null | undefined, signal?: AbortSignal): Promise<RegisterData> {
      const at = Date.now();
      const nonce = toBase64Url(crypto.getRandomValues(new Uint8Array(18)));
      const statement = registerStatement(opts.serverId, signer.publicKey, at, nonce, await sessionHash);
      const signature = await signer.sign(statement);
      const body: Record<string, unknown> = {
        secret: session,
        publicKey: signer.publicKey,
        proof: { at, nonce, signature },
      };
      if (pairCodeHash !== undefined) body.pairCodeHash = pairCodeHash;
      return (await call('/api/v1/relay/register', body, signal)) as RegisterData;
    },
    /**
     * Long-polls for up to `max` items. Each item is checked on its own: one that does not
     * decode is returned in `bad` (with its request id when it has one) so it fails alone,
     * never taking the rest of the batch with it.
     */
    async pull(max: number, waitMs: number, signal?: AbortSignal): Promise<PulledBatch> {
      const data = (await call('/api/v1/relay/pull', { secret: session, max, waitMs }, signal)) as {
        now?: unknown;
        items?: unknown;
      } | null;
      if (typeof data?.now !== 'number' || !Array.isArray(data.items))
        throw new RelayCallError('unavailable', 'relay sent a malformed pull answer');
      return splitItems(data.now, data.items);
    },
    /** Posts answers; returns how many the relay accepted and the ids it refused. */
    respond(responses: RelayAnswer[], signal?: AbortSignal) {
      return call('/api/v1/relay/respond', { secret: session, responses }, signal) as Promise<{
        accepted: number;
        rejected: string[];
      }>;
    },
    /** Tells the relay this server is going away. */
    unregister(signal?: AbortSignal) {
      return call('/api/v1/relay/unregister', { secret: session }, signal);
    },
  };
}

/** A pulled batch: the items that decode, and those that do not (answered with an error alone). */
export interface PulledBatch {
  now: number;
  items: RelayItem[];
  bad: { requestId: string | null; kind: 'http' | 'pair' | null; reason: string }[];
}

const REQUEST_ID = /^[A-Za-z0-9-]{8,64}$/;

/** Decodes each item on its own. */
export function splitItems(now: number, raw: unknown[]): PulledBatch {
  const out: PulledBatch = { now, items: [], bad: [] };
  for (const it of raw) {
    const o = (it ?? {}) as { kind?: unknown; requestId?: unknown };
    const schema = o.kind === 'pair' ? PairItem : HttpItem;
    const parsed = v.safeParse(schema, it);
    if (parsed.success) {
      out.items.push(parsed.output);
      continue;
    }
    const requestId = typeof o.requestId === 'string' && REQUEST_ID.test(o.requestId) ? o.requestId : null;
    const kind = o.kind === 'pair' || o.kind === 'http' ? o.kind : null;
    out.bad.push({ requestId, kind, reason: v.getDotPath(parsed.issues[0]) ?? '(item)' });
  }
  return out;
}

/** The client `relayClient` returns. */
export type RelayClient = ReturnType<typeof relayClient>;
