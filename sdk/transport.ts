/** How the typed client reaches a server: a fetch-based transport, or one you supply. */

/** One call, as the client describes it. */
export interface ApiRequest {
  /** The OpenAPI operationId (adapters/http/openapi/operations.ts). */
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path from the server's root, e.g. `/api/v1/notes/a%2Fb.md`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw bytes to send instead of a JSON body (file uploads). */
  rawBody?: Uint8Array | Blob | ReadableStream<Uint8Array>;
  /** Resolve with the Response itself (file downloads; 2xx and 304 only). */
  rawResponse?: boolean;
}

/** Sends a request and resolves with the envelope's `data` (or rejects). */
export type Transport = <T>(req: ApiRequest) => Promise<T>;

/** A failure the server answered: its status and the envelope's error. */
export class QuireApiError extends Error {
  override name = 'QuireApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Where and how to call: the server (or `<relay>/r/<serverId>`) and the credentials. */
export interface FetchTransportOptions {
  /** e.g. `http://127.0.0.1:3000` or `https://relay.example.com/r/<serverId>`; no trailing `/api/v1`. */
  baseUrl: string;
  /** Sent in X-Service-Key (api-key mode, and auth/verify, link, token in every mode). */
  apiKey?: string;
  /** Sent as `Authorization: Bearer` (jwt mode). */
  token?: string;
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every call. */
  headers?: Record<string, string>;
}

/** The query string of `query`, without undefined values ('' when empty). */
export function queryString(query: ApiRequest['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** A transport over fetch: JSON in, the envelope's data out, QuireApiError for error envelopes. */
export function fetchTransport(opts: FetchTransportOptions): Transport {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const fetchFn = opts.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
  return async <T>(req: ApiRequest): Promise<T> => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers, ...req.headers };
    if (opts.apiKey) headers['x-service-key'] = opts.apiKey;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: BodyInit | undefined;
    if (req.rawBody !== undefined) {
      headers['content-type'] ??= 'application/octet-stream';
      body = req.rawBody as BodyInit;
    } else if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, body };
    if (req.rawBody instanceof ReadableStream) init.duplex = 'half';
    const res = await fetchFn(`${base}${req.path}${queryString(req.query)}`, init);
    if (req.rawResponse && ((res.status >= 200 && res.status < 300) || res.status === 304)) {
      return res as T;
    }
    const text = await res.text();
    let json: { success?: boolean; data?: T; error?: { code: string; message: string; details?: unknown } };
    try {
      json = JSON.parse(text);
    } catch {
      throw new QuireApiError(
        res.status,
        'NOT_JSON',
        `${req.method} ${req.path} answered ${res.status} without JSON.`,
      );
    }
    if (json.success === true) return json.data as T;
    const e = json.error;
    throw new QuireApiError(
      res.status,
      e?.code ?? 'UNKNOWN',
      e?.message ?? `Status ${res.status}.`,
      e?.details,
    );
  };
}
