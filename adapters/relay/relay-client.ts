import * as v from 'valibot';
import { PullData, type RegisterData, type RelayAnswer } from '../../relay/protocol.ts';
import { nodeTransport } from './node-transport.ts';

/** What the connector needs of an HTTP answer (a fetch Response is one). */
export interface RelayHttpAnswer {
  status: number;
  ok: boolean;
  text(): Promise<string>;
}

/** The fetch the connector uses; `fetch` and `relayApp.request` fit (the latter for in-process tests). */
export type FetchLike = (url: string, init: RequestInit) => Promise<RelayHttpAnswer> | RelayHttpAnswer;

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
export function relayClient(opts: { relayUrl: string; serverId: string; secret: string; fetch?: FetchLike }) {
  const base = opts.relayUrl.replace(/\/+$/, '');
  const fetchFn: FetchLike = opts.fetch ?? nodeTransport();
  const who = { serverId: opts.serverId, secret: opts.secret };

  async function call(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    let res: RelayHttpAnswer;
    try {
      res = await fetchFn(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...who, ...body }),
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
    if (res.status === 403) throw new RelayCallError('refused', why, res.status);
    const retry = res.status >= 500 || res.status === 429 || res.status === 408 || json === null;
    throw new RelayCallError(retry ? 'unavailable' : 'rejected', why, res.status);
  }

  return {
    /** Registers (idempotent); `pairCodeHash`: undefined keeps, null clears, a hash replaces. */
    register(pairCodeHash: string | null | undefined, signal?: AbortSignal) {
      const body = pairCodeHash === undefined ? {} : { pairCodeHash };
      return call('/api/v1/relay/register', body, signal) as Promise<RegisterData>;
    },
    /** Long-polls for up to `max` items. */
    async pull(max: number, waitMs: number, signal?: AbortSignal): Promise<PullData> {
      const data = await call('/api/v1/relay/pull', { max, waitMs }, signal);
      const parsed = v.safeParse(PullData, data);
      if (!parsed.success) throw new RelayCallError('unavailable', 'relay sent a malformed pull answer');
      return parsed.output;
    },
    /** Posts answers; returns how many the relay accepted and the ids it refused. */
    respond(responses: RelayAnswer[], signal?: AbortSignal) {
      return call('/api/v1/relay/respond', { responses }, signal) as Promise<{
        accepted: number;
        rejected: string[];
      }>;
    },
    /** Tells the relay this server is going away. */
    unregister(signal?: AbortSignal) {
      return call('/api/v1/relay/unregister', {}, signal);
    },
  };
}

/** The client `relayClient` returns. */
export type RelayClient = ReturnType<typeof relayClient>;
