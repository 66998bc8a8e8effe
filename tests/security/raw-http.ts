import { connect } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/** One request exactly as it goes on the wire (paths and headers are not normalized). */
export interface RawRequest {
  method: string;
  /** The request target as sent, e.g. `/api/v1/notes/..%2f..%2fx.md`. */
  target: string;
  headers: [string, string][];
  body: Uint8Array | null;
  /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  chunked: boolean;
  /** Declare fewer bytes in Content-Length than are sent (the rest is ignored). */
  shortLength: boolean;
  /** With a body: a second, different Content-Length, or both Content-Length and chunked. */
  smuggle: 'duplicate-length' | 'length-and-chunked' | null;
}

/** What came back: status, lower-cased headers, body bytes as text; status 0 when none. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

const enc = new TextEncoder();

/** The bytes of `req`, with `Host` and `Connection: close`. */
export function encodeRequest(req: RawRequest, host: string): Uint8Array {
  const lines = [`${req.method} ${req.target} HTTP/1.1`, `Host: ${host}`, 'Connection: close'];
  for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
  const body = req.body;
  const parts: Uint8Array[] = [];
  if (body && req.smuggle === 'duplicate-length') lines.push(`Content-Length: ${body.length + 7}`);
  if (body && req.smuggle === 'length-and-chunked')
    lines.push(req.chunked ? `Content-Length: ${body.length}` : 'Transfer-Encoding: chunked');
  if (body && req.chunked) {
    lines.push('Transfer-Encoding: chunked');
    parts.push(enc.encode(`${lines.join('\r\n')}\r\n\r\n`));
    for (let i = 0; i < body.length; i += 4096) {
      const chunk = body.subarray(i, i + 4096);
      parts.push(enc.encode(`${chunk.length.toString(16)}\r\n`), chunk, enc.encode('\r\n'));
    }
    parts.push(enc.encode('0\r\n\r\n'));
  } else {
    if (body) lines.push(`Content-Length: ${req.shortLength ? Math.floor(body.length / 2) : body.length}`);
    parts.push(enc.encode(`${lines.join('\r\n')}\r\n\r\n`));
    if (body) parts.push(body);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Decodes a chunked body; on a malformed one returns what it has. */
function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\r\n', at);
    if (nl < 0) return out;
    const size = Number.parseInt(text.slice(at, nl), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    out += text.slice(nl + 2, nl + 2 + size);
    at = nl + 2 + size + 2;
  }
}

/** The body without its Content-Encoding (gzip, br); as it is when it does not decode. */
function decodeBody(bytes: Buffer, encoding: string | undefined): Buffer {
  try {
    if (encoding === 'gzip') return gunzipSync(bytes);
    if (encoding === 'br') return brotliDecompressSync(bytes);
  } catch {}
  return bytes;
}

/** Parses a whole HTTP/1.1 response read until the server closed the connection. */
export function parseResponse(bytes: Buffer): RawResponse {
  let raw = bytes.toString('latin1');
  // Skip interim answers (100 Continue) to the final one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes('\r\n\r\n'))
    raw = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const l of headerLines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  // latin1 maps bytes to characters one to one, so chunk sizes (in bytes) line up.
  const rawBody = end < 0 ? '' : raw.slice(end + 4);
  const bodyBytes = headers['transfer-encoding']?.includes('chunked') ? unchunk(rawBody) : rawBody;
  // Compressed answers (the list, the tree and search with Accept-Encoding) are checked as a client reads them.
  const body = decodeBody(Buffer.from(bodyBytes, 'latin1'), headers['content-encoding']).toString('utf8');
  return { status, headers, body, raw };
}

/** Sends one raw request over a fresh loopback connection; rejects after `ms` without an answer. */
export function sendRaw(port: number, req: RawRequest, ms = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
    socket.on('connect', () => socket.write(encodeRequest(req, `127.0.0.1:${port}`)));
    socket.on('data', (d) => {
      chunks.push(d);
      // An event stream never ends: its head and first event are the answer.
      let seen = Buffer.concat(chunks).toString('latin1');
      // Past interim answers (100 Continue) to the final head.
      while (/^HTTP\/1\.[01] 1\d\d /.test(seen) && seen.includes('\r\n\r\n'))
        seen = seen.slice(seen.indexOf('\r\n\r\n') + 4);
      const end = seen.indexOf('\r\n\r\n');
      if (
        end > 0 &&
        /\r\ncontent-type: text\/event-stream/i.test(seen.slice(0, end)) &&
        seen.includes('\n\n', end + 4)
      )
        socket.destroy();
    });
    // A server may close while we are still writing (413 before the whole body): not a failure.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks)));
    });
  });
}
