import http from 'node:http';
import https from 'node:https';
import type { FetchLike } from './fetch-like.ts';

/**
 * The connector's default transport on Node: `node:http(s)` with keep-alive agents. It does
 * what the relay protocol needs (POST a JSON string, read the answer as text) at a fraction
 * of the CPU of the global fetch, which matters because every relayed request costs a share
 * of a pull and a respond.
 */
export function nodeTransport(): FetchLike {
  // noDelay: a POST goes out as headers then body; with Nagle on, the body waits for the
  // relay's delayed ACK (40 ms on Linux) on every pull and respond.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64, noDelay: true }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64, noDelay: true }),
  };
  return (url, init) =>
    new Promise((resolve, reject) => {
      const u = new URL(url);
      const lib = u.protocol === 'https:' ? https : http;
      const agent = u.protocol === 'https:' ? agents['https:'] : agents['http:'];
      const body = typeof init.body === 'string' ? init.body : '';
      const req = lib.request(
        u,
        {
          method: init.method ?? 'POST',
          agent,
          headers: { ...(init.headers as Record<string, string>), 'content-length': Buffer.byteLength(body) },
          signal: init.signal ?? undefined,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, ok: (res.statusCode ?? 0) < 300, text: async () => text });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}
