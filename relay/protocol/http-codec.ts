import { fromBase64 as base64ToBytes, toBase64 as bytesToBase64 } from '../../core/crypto.ts';
import type { HttpAnswer } from './messages.ts';

/** Headers that describe one hop, never forwarded (RFC 9110 7.6.1), plus framing we recompute. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
]);

/** Set by the relay itself; a client's own values are dropped so they cannot be spoofed. */
const RELAY_SET = new Set([
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-prefix',
]);

/** The end-to-end headers of `pairs`: hop-by-hop ones and those named in `Connection` dropped. */
export function endToEnd(pairs: readonly [string, string][], extraDrop?: Set<string>): [string, string][] {
  // This runs twice per relayed request on the relay: a first pass only looks for Connection (a
  // Connection header may name headers sent before it), and a pair whose name is already lower
  // case is kept as it is, so no array is made for it.
  let named: Set<string> | undefined;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (pair[0].length === 10 && pair[0].toLowerCase() === 'connection') {
      named ??= new Set();
      for (const s of pair[1].split(',')) named.add(s.trim().toLowerCase());
    }
  }
  const out: [string, string][] = [];
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const k = pair[0];
    const name = k.toLowerCase();
    if (HOP_BY_HOP.has(name) || named?.has(name) || extraDrop?.has(name)) continue;
    out.push(name === k ? pair : [name, pair[1]]);
  }
  return out;
}

/** Header pairs of a Headers object, each Set-Cookie on its own. */
export function headerPairs(headers: Headers): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, val] of headers) if (k !== 'set-cookie') out.push([k, val]);
  for (const c of headers.getSetCookie()) out.push(['set-cookie', c]);
  return out;
}

/** Bytes to base64; null for no bytes. */
export function toBase64(bytes: Uint8Array | null): string | null {
  return bytes && bytes.byteLength > 0 ? bytesToBase64(bytes) : null;
}

/** Base64 to bytes; null stays null. */
export function fromBase64(b64: string | null): Uint8Array | null {
  return b64 ? base64ToBytes(b64) : null;
}

/** What the relay knows about where its client requests come from: its public base's parts. */
export interface ForwardInfo {
  proto: string;
  host: string;
}

/**
 * The headers a proxied request carries to the server: its end-to-end ones and the relay's
 * X-Forwarded-* (`prefix`: `<public base path>/r/<serverId>`).
 */
export function requestHeaders(
  pairs: readonly [string, string][],
  info: ForwardInfo,
  clientAddress: string | undefined,
  prefix: string,
): [string, string][] {
  const out = endToEnd(pairs, RELAY_SET);
  if (clientAddress) out.push(['x-forwarded-for', clientAddress]);
  out.push(
    ['x-forwarded-proto', info.proto],
    ['x-forwarded-host', info.host],
    ['x-forwarded-prefix', prefix],
  );
  return out;
}

/**
 * Answer headers no server may set on the relay's shared origin: cookies (every server's path
 * would share them), wiping the origin's storage, HSTS and alternative services for the relay's
 * host, service-worker scope widening.
 */
const ORIGIN_WIDE = new Set([
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'strict-transport-security',
  'alt-svc',
  'service-worker-allowed',
]);

/** Types a browser runs or renders as a document (scripts, markup, PDF); no type at all counts too. */
const ACTIVE_TYPE =
  /^(text\/(html|xml|xsl|javascript|ecmascript|jscript|vbscript)|application\/(xhtml\+xml|xml|javascript|ecmascript|x-javascript|pdf|wasm|[\w.+-]*\+xml)|image\/svg\+xml|multipart\/x-mixed-replace)\b/i;

/** The CSP a proxied active answer gets: a unique opaque origin, no script, no form, no plugin. */
export const RELAY_SANDBOX_CSP = 'sandbox';
/**
 * The exceptions: the OAuth consent page (`/oauth/authorize`) must submit its form for an owner
 * to approve an MCP client through the relay, and a published page (`/p/<id>/...`, not its
 * attachments) its search form. They stay opaque origins without script, popups or plugins; a
 * form on them can only send what a user types to that same server, which any page on the web
 * can do.
 */
export const RELAY_FORMS_CSP = 'sandbox allow-forms';
const FORM_PAGE = /^(?:\/oauth\/authorize(?:\?|$)|\/p\/pub_[A-Za-z0-9_-]+\/(?!_files\/))/;

/**
 * The headers a proxied answer reaches the client with: end-to-end ones, minus those that act
 * on the relay's whole origin (`ORIGIN_WIDE`); an answer with active content also gets
 * `Content-Security-Policy: sandbox` (added to the server's own, so both apply) and
 * `X-Frame-Options: DENY`, and every answer `X-Content-Type-Options: nosniff`, so one server on
 * a shared relay can neither run script on the relay's origin nor set state for the others
 * (docs/reference/relay.md, "One origin, many servers").
 */
export function proxiedHeaders(
  pairs: readonly [string, string][],
  /** The request's path below `/r/<serverId>` (with its query), when known. */
  path = '',
): [string, string][] {
  const all = endToEnd(pairs, ORIGIN_WIDE);
  let type = '';
  for (let i = 0; i < all.length; i++)
    if (all[i]![0] === 'content-type') {
      type = all[i]![1].trim();
      break;
    }
  const active = type === '' || ACTIVE_TYPE.test(type);
  // The server's own nosniff (and frame options on active content) give way to the relay's.
  let kept = 0;
  for (let i = 0; i < all.length; i++) {
    const k = all[i]![0];
    if (k !== 'x-content-type-options' && !(active && k === 'x-frame-options')) all[kept++] = all[i]!;
  }
  all.length = kept;
  all.push(['x-content-type-options', 'nosniff']);
  if (active) {
    const csp = FORM_PAGE.test(path) ? RELAY_FORMS_CSP : RELAY_SANDBOX_CSP;
    all.push(['content-security-policy', csp], ['x-frame-options', 'DENY']);
  }
  return all;
}

/** The client's Response for a server's answer. */
export function answerToResponse(
  answer: HttpAnswer & { bytes?: Uint8Array | null },
  method: string,
  requestId: string,
  path = '',
): Response {
  const headers = new Headers();
  for (const [k, val] of proxiedHeaders(answer.headers, path)) headers.append(k, val);
  headers.set('x-relay-request-id', requestId);
  const noBody = method === 'HEAD' || [204, 205, 304].includes(answer.status);
  const bytes = noBody ? null : answer.bytes !== undefined ? answer.bytes : fromBase64(answer.body);
  return new Response(bytes as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers });
}
