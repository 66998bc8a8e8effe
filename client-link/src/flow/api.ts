/**
 * The client's HTTP calls to a Quire server or relay: JSON in the envelope, a time-out on every
 * call, and failures turned into ApiFailure with a kind the UI can explain. Nothing here ever puts
 * the key into an error.
 */

export type FailureKind = 'UNREACHABLE' | 'TIMEOUT' | 'HTTP' | 'NOT_QUIRE' | 'ABORTED';

export class ApiFailure extends Error {
  override name = 'ApiFailure';
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status = 0,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** True when a failure means the server could not be reached (not that it refused). */
export const isUnreachable = (err: unknown): boolean =>
  err instanceof ApiFailure && (err.kind === 'UNREACHABLE' || err.kind === 'TIMEOUT');

export interface CallOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Answer<T> {
  status: number;
  data: T;
  headers: Headers;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** Calls `url` and returns the envelope's data; throws ApiFailure on anything else. */
export async function callJson<T>(
  fetchFn: typeof fetch,
  url: string,
  opts: CallOptions = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.key) headers['x-service-key'] = opts.key;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
  const host = safeHost(url);
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: opts.method ?? 'GET',
      headers,
      body,
      signal,
      referrerPolicy: 'no-referrer',
    });
  } catch {
    if (opts.signal?.aborted) throw new ApiFailure('ABORTED', 'The request was cancelled.');
    if (timer.signal.aborted)
      throw new ApiFailure('TIMEOUT', `${host} did not answer within ${Math.round(timeoutMs / 1000)} s.`);
    throw new ApiFailure('UNREACHABLE', `Could not reach ${host}: check the address and that it is running.`);
  } finally {
    clearTimeout(timeout);
  }
  type Envelope = { success?: boolean; data?: T; error?: { code?: string; message?: string } };
  let json: Envelope | null = null;
  if (res.status !== 204 && res.status !== 304) {
    try {
      json = (await res.json()) as Envelope;
    } catch {
      json = null;
    }
  }
  if (res.ok || res.status === 304) {
    if (res.status !== 304 && json?.success !== true)
      throw new ApiFailure('NOT_QUIRE', `${host} answered, but not like a Quire server.`, res.status);
    return { status: res.status, data: json?.data as T, headers: res.headers };
  }
  if (!json?.error)
    throw new ApiFailure('NOT_QUIRE', `${host} answered ${res.status}, not like Quire.`, res.status);
  throw new ApiFailure(
    'HTTP',
    json.error.message ?? `${host} answered ${res.status}.`,
    res.status,
    json.error.code ?? null,
  );
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}

/** `POST {relayUrl}/api/v1/pair/exchange`: a pairing code for the server's address and a key. */
export async function exchangeCode(
  fetchFn: typeof fetch,
  relayUrl: string,
  code: string,
  timeoutMs?: number,
) {
  const { data } = await callJson<{ serverId: string; serverUrl: string; apiKey: string }>(
    fetchFn,
    `${relayUrl}/api/v1/pair/exchange`,
    { method: 'POST', body: { code }, timeoutMs },
  );
  if (!data || typeof data.serverUrl !== 'string' || typeof data.apiKey !== 'string')
    throw new ApiFailure('NOT_QUIRE', 'The relay answered the pairing request without an address and key.');
  return data;
}

/** `POST {serverUrl}/api/v1/auth/verify` with the key. */
export async function verifyKey(fetchFn: typeof fetch, serverUrl: string, key: string, timeoutMs?: number) {
  const { data } = await callJson<{ valid: boolean; serverId: string; setupComplete: boolean }>(
    fetchFn,
    `${serverUrl}/api/v1/auth/verify`,
    { method: 'POST', key, timeoutMs },
  );
  if (data?.valid !== true || typeof data.serverId !== 'string')
    throw new ApiFailure('NOT_QUIRE', 'The server did not confirm the key.');
  return data;
}

/** `POST {serverUrl}/api/v1/auth/link`: marks setup complete. */
export async function markLinked(fetchFn: typeof fetch, serverUrl: string, key: string, timeoutMs?: number) {
  const { data } = await callJson<{ serverId: string; setupComplete: boolean; linkedAt?: string }>(
    fetchFn,
    `${serverUrl}/api/v1/auth/link`,
    { method: 'POST', key, timeoutMs },
  );
  return data;
}
