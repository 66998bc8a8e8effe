import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { PinnedFetch } from '../../core/net/egress.ts';

/** The request body as bytes (string, bytes, URLSearchParams, Blob or stream). */
async function bodyBytes(body: RequestInit['body']): Promise<Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return new Uint8Array(await new Response(body as BodyInit).arrayBuffer());
}

/**
 * A fetch that connects to exactly `address` (checked by the egress policy) with the URL's host as
 * the Host header and the TLS server name: node:http(s) with a `lookup` that answers only that
 * address, so no second DNS query can point the connection elsewhere. Redirects are not followed.
 */
export const nodePinnedFetch: PinnedFetch = async (url, init, address) => {
  const u = new URL(url);
  const family = address.includes(':') ? 6 : 4;
  const lookup: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all)
      (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else cb(null, address, family);
  };
  const headers = new Headers(init.headers);
  const body = await bodyBytes(init.body);
  if (body && !headers.has('content-length')) headers.set('content-length', String(body.byteLength));
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const req = send(
      u,
      {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        lookup,
        signal: init.signal ?? undefined,
        ...(u.protocol === 'https:' ? { servername: u.hostname.replace(/^\[|\]$/g, '') } : {}),
      },
      (res: IncomingMessage) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) out.append(name, v);
          else if (value !== undefined) out.set(name, value);
        }
        const status = res.statusCode ?? 502;
        const empty = status === 204 || status === 304 || init.method === 'HEAD';
        if (empty) res.resume();
        resolve(
          new Response(empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status,
            statusText: res.statusMessage ?? '',
            headers: out,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
};
