import type { Logger } from '../core/ports.ts';
import { corsHeaders } from './cors.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { SECURE_HEADERS } from './secure-headers.ts';

/**
 * The rules every answer of a frame follows, as plain functions and records: the headers every
 * answer carries (security headers, `X-Request-Id`, CORS), how they join an answer's own, the
 * access-log line and the client's address. The Hono middlewares of the server and the relay and
 * the Node dispatcher (http-kit/node/dispatch.ts) all apply these; none restates them.
 */

/** Headers every answer of one request carries unless it sets them itself. */
export type BaseHeaders = Record<string, string>;

/** Counters of a request frame (every request is counted, whatever the log level). */
export interface FrameStats {
  requests: number;
}

/**
 * The note server's base headers of one request: security headers, `X-Request-Id`, and the CORS
 * headers when `origin` is given (pass it only for `/api/` paths with a non-empty allowlist).
 */
export function serverBaseHeaders(
  id: string,
  origin: string | undefined,
  origins: readonly string[] | undefined,
): BaseHeaders {
  const base: BaseHeaders = { ...SECURE_HEADERS, [REQUEST_ID_HEADER]: id };
  return origin ? Object.assign(base, corsHeaders(origins, origin)) : base;
}

/** True for a path whose answers carry the CORS headers (with a non-empty allowlist). */
export const corsPath = (path: string): boolean => path.startsWith('/api/');

/**
 * The base headers an answer lacks, to set on it (a handler's own values win; `Vary` is merged,
 * never replaced). `get` reads the answer's header by lower-case name. `X-Request-Id` marks the
 * API's answers: it is left off pages and assets (any type but JSON).
 */
export function baseToAdd(base: BaseHeaders, get: (lowerName: string) => string | null): [string, string][] {
  const out: [string, string][] = [];
  let api: boolean | undefined;
  for (const name in base) {
    const value = base[name]!;
    const lower = name.toLowerCase();
    if (lower === 'x-request-id') {
      if (api === undefined) {
        const type = get('content-type');
        api = type === null || type.includes('json');
      }
      if (!api) continue;
    }
    const cur = get(lower);
    if (lower === 'vary') {
      if (!cur) out.push([name, value]);
      else if (!cur.split(',').some((v) => v.trim().toLowerCase() === 'origin'))
        out.push([name, `${cur}, ${value}`]);
    } else if (cur === null) out.push([name, value]);
  }
  return out;
}

/** The header record of an answer built with the base in front: `base`, then `headers` (which win; a `Vary` of both is merged). */
export function withBase(
  base: BaseHeaders | undefined,
  headers: Record<string, string>,
): Record<string, string> {
  if (!base) return headers;
  const all = { ...base, ...headers };
  if (base.Vary && headers.Vary) all.Vary = `${base.Vary}, ${headers.Vary}`;
  return all;
}

/** How a frame logs: the path shown (e.g. only a route's shape) and which answers are quiet (debug). */
export interface LogRule {
  path?: (path: string) => string;
  quiet?: (path: string, status: number) => boolean;
}

/** The access-log line of one request: method, path without query, status, ms, request id; never a secret. */
export function logRequest(
  logger: Logger,
  rule: LogRule | undefined,
  requestId: string | undefined,
  method: string,
  rawPath: string,
  status: number,
  started: number,
): void {
  const path = rule?.path ? rule.path(rawPath) : rawPath;
  const level = rule?.quiet?.(path, status) ? 'debug' : 'info';
  logger[level]('request', {
    requestId,
    method,
    path,
    status,
    ms: Math.round((performance.now() - started) * 10) / 10,
  });
}

/**
 * The client's address: the socket's, or with `trustProxy` the address the proxy appended last to
 * X-Forwarded-For (the one entry a client cannot forge).
 */
export function clientAddressOf(
  trustProxy: boolean,
  forwardedFor: string | undefined,
  socket: () => string | undefined,
): string | undefined {
  if (trustProxy) {
    const last = lastForwarded(forwardedFor);
    if (last) return last;
  }
  return socket();
}

/** The last hop of an X-Forwarded-For value (the one its nearest proxy wrote). */
export function lastForwarded(forwardedFor: string | undefined): string | undefined {
  return forwardedFor?.split(',').at(-1)?.trim() || undefined;
}

/**
 * Header lines as a web Headers object holds them: a repeated name (any case) once, its values
 * joined with `, ` in order, at the place of its first line; `set-cookie` lines stay apart. `pairs`
 * is returned as it is when no name repeats (the usual case).
 */
export function foldRepeats(pairs: [string, string][]): [string, string][] {
  let repeats = false;
  const names = pairs.map(([k]) => k.toLowerCase());
  for (let i = 1; i < names.length && !repeats; i++)
    if (names[i] !== 'set-cookie' && names.indexOf(names[i]!) < i) repeats = true;
  if (!repeats) return pairs;
  const at = new Map<string, [string, string]>();
  const out: [string, string][] = [];
  pairs.forEach(([, v], i) => {
    const name = names[i]!;
    const prev = name === 'set-cookie' ? undefined : at.get(name);
    if (prev) prev[1] = `${prev[1]}, ${v}`;
    else {
      const pair: [string, string] = [name, v];
      at.set(name, pair);
      out.push(pair);
    }
  });
  return out;
}
