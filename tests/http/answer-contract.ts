/**
 * The HTTP-answer contract: what must be equal between two paths that answer the same request
 * (the app over `app.request`, the Node dispatcher on a real socket, the relay's dispatcher and
 * its Hono route through a real tunnel), and how a request is sent raw over node:http.
 */
import { request } from 'node:http';

/** One answer as it reached the client. */
export interface Answer {
  status: number;
  /** `[lower-case name, value]` in the order received (repeats kept). */
  headers: [string, string][];
  body: Buffer;
}

/** One request: method, target (path and query), headers in order, an optional body. */
export interface Ask {
  method: string;
  target: string;
  headers: [string, string][];
  body?: string;
}

/**
 * Headers left out of the comparison, each for a reason: the transport's own (`date`,
 * `connection`, `keep-alive`, `transfer-encoding`; `content-length` is checked against the bytes
 * instead), and the per-request ids: `x-relay-request-id` always, `x-request-id` when the client
 * sent none (a fresh uuid on each path; when it sends one, both must echo it).
 */
export const NOT_COMPARED = [
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
] as const;
export const PER_REQUEST_IDS = ['x-relay-request-id', 'x-request-id'] as const;

/**
 * Volatile parts of a body, listed: seconds of uptime and a check's time may tick between two asks;
 * a passkey challenge is new random bytes on every ask, by design.
 */
const VOLATILE: [RegExp, string][] = [
  [/"uptimeSeconds":\d+/g, '"uptimeSeconds":0'],
  [/"checkedAt":"[^"]*"/g, '"checkedAt":"-"'],
  [/"challenge":"[\w-]+"/g, '"challenge":"-"'],
];

/**
 * The comparable form of an answer: status, headers sorted by name (order is not part of the
 * contract; names compared lower-case), body bytes as text. `swap` replaces a path's own base
 * URLs (two relays listen on two ports) by one placeholder.
 */
export function comparable(a: Answer, swap: [string, string][] = []) {
  const fix = (s: string) => swap.reduce((acc, [from, to]) => acc.replaceAll(from, to), s);
  const out: string[] = [];
  for (const [k, v] of a.headers) {
    if ((NOT_COMPARED as readonly string[]).includes(k)) continue;
    if ((PER_REQUEST_IDS as readonly string[]).includes(k) && /^[0-9a-f-]{36}$/.test(v)) {
      out.push(`${k}: <uuid>`);
      continue;
    }
    out.push(`${k}: ${fix(v)}`);
  }
  out.sort();
  const cl = a.headers.find(([k]) => k === 'content-length');
  return {
    status: a.status,
    headers: out,
    body: VOLATILE.reduce((b, [re, to]) => b.replace(re, to), fix(a.body.toString('latin1'))),
    // A Content-Length, when sent, must be the body's length.
    lengthOk: cl === undefined || Number(cl[1]) === a.body.length,
  };
}

/** Sends `ask` to `base` over node:http exactly as written (its own Host, repeated headers kept). */
export function rawAsk(base: string, ask: Ask): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const prefix = u.pathname.replace(/\/$/, '');
    const flat = [['Host', u.host], ...ask.headers];
    if (ask.body !== undefined) flat.push(['Content-Length', String(Buffer.byteLength(ask.body))]);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: ask.method,
        path: prefix + ask.target,
        headers: flat.flat(),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const headers: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            headers.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('error', reject);
    req.end(ask.body);
  });
}

/** Asks a fetch-like app (`app.request`) the same request. */
export async function appAsk(
  app: { request: (input: string, init?: RequestInit) => Response | Promise<Response> },
  base: string,
  ask: Ask,
): Promise<Answer> {
  const res = await app.request(`${base}${ask.target}`, {
    method: ask.method,
    headers: ask.headers,
    body: ask.body,
  });
  const headers: [string, string][] = [];
  res.headers.forEach((v, k) => {
    headers.push([k, v]);
  });
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}
