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
  return origin ? corsHeaders(origins, origin, base) : base;
}

/** True for a path whose answers carry the CORS headers (with a non-empty allowlist). */
export const corsPath = (path: string): boolean => path.startsWith('/api/');

/** Lower-case names of the base headers (a handful of constant names, lowered once). */
const LOWER = new Map<string, string>();
const lower = (name: string): string => {
  let l = LOWER.get(name);
  if (l === undefined) {
    l = name.toLowerCase();
    if (LOWER.size < 64) LOWER.set(name, l);
  }
  return l;
};

/**
 * The base headers an answer lacks, to set on it (a handler's own values win; `Vary` is merged,
 * never replaced): `set(name, value)` for each. `get` reads the answer's header by lower-case
 * name. `X-Request-Id` marks the API's answers: it is left off pages and assets (any type but JSON).
 */
export function addBase(
  base: BaseHeaders,
  get: (lowerName: string) => string | null,
  set: (name: string, value: string) => void,
): void {
  let api: boolean | undefined;
  for (const name in base) {
    const value = base[name]!;
    const l = lower(name);
    if (l === 'x-request-id') {
      if (api === undefined) {
        const type = get('content-type');
        api = type === null || type.includes('json');
      }
      if (!api) continue;
    }
    const cur = get(l);
    if (l === 'vary') {
      if (!cur) set(name, value);
      else if (!cur.split(',').some((v) => v.trim().toLowerCase() === 'origin'))
        set(name, `${cur}, ${value}`);
    } else if (cur === null) set(name, value);
  }
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

/**
 * The socket address of a request the relay's tunnel delivered (it has no socket here): the
 * client the relay put last in X-Forwarded-For, or `relay`. The app (deploy/shared/node-parts.ts)
 * and the tunnel's hot answers (relay/connector/tunnel-hot.ts) both take it from here.
 */
export function relayedSocketAddress(forwardedFor: string | undefined): string {
  return lastForwarded(forwardedFor) ?? 'relay';
}

/** The last hop of an X-Forwarded-For value (the one its nearest proxy wrote). */
export function lastForwarded(forwardedFor: string | undefined): string | undefined {
  return forwardedFor?.split(',').at(-1)?.trim() || undefined;
}

/**
 * Header lines as a web Headers object holds them, into a flat `[name, value, ...]` list: a
 * repeated name (any case) once, its values joined with `, ` in order, at the place of its first
 * line; `set-cookie` lines stay apart. `names` gets the lower-case name of each line kept
 * (`names[i]` for `flat[2 * i]`).
 */
export function foldInto(
  pairs: readonly (readonly [string, string])[],
  flat: string[],
  names: string[],
  lowerNames = false,
): void {
  for (const [k, v] of pairs) foldLine(flat, names, k, v, lowerNames);
}

/** `foldInto` of node:http's `rawHeaders` (`[name, value, ...]`), each value trimmed. */
export function foldRawInto(
  raw: readonly string[],
  flat: string[],
  names: string[],
  lowerNames = false,
): void {
  for (let i = 0; i < raw.length; i += 2) foldLine(flat, names, raw[i]!, raw[i + 1]!.trim(), lowerNames);
}

/** One line of `foldInto`. */
function foldLine(flat: string[], names: string[], k: string, v: string, lowerNames: boolean): void {
  const name = k.toLowerCase();
  const i = name === 'set-cookie' ? -1 : names.indexOf(name);
  if (i !== -1) flat[2 * i + 1] = `${flat[2 * i + 1]}, ${v}`;
  else {
    names.push(name);
    flat.push(lowerNames ? name : k, v);
  }
}

/**
 * The header lines of an answer as they go out: its own, folded (`foldInto`), then the base
 * headers it lacks (`addBase`).
 */
export function answerHeaderLines(own: readonly (readonly [string, string])[], base: BaseHeaders): string[] {
  const flat: string[] = [];
  const names: string[] = [];
  foldInto(own, flat, names);
  addBase(
    base,
    (l) => {
      const i = names.indexOf(l);
      return i === -1 ? null : flat[2 * i + 1]!;
    },
    (k, v) => {
      const i = names.indexOf(lower(k));
      if (i !== -1) flat[2 * i + 1] = v;
      else flat.push(k, v);
    },
  );
  return flat;
}
