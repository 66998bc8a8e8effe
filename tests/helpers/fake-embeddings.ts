/**
 * A deterministic embeddings server on loopback that speaks the OpenAI embeddings API
 * (`POST /v1/embeddings`): each text becomes a hashed bag of its words (lower-cased, a crude
 * plural/-ing strip), so texts sharing words are near. Real HTTP, no model: a plumbing check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_DIMS = 256;
const STOP = new Set(
  'a an and are as at be by do does for from how i in is it of on or the to what with'.split(' '),
);

function hash(w: string): number {
  let h = 2166136261;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The fake model's vector of `text`. */
export function fakeVector(text: string): number[] {
  const v = new Array<number>(FAKE_DIMS).fill(0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP.has(raw)) continue;
    const w = raw.replace(/(?:ing|ed|es|s)$/, '') || raw;
    const h = hash(w);
    v[h % FAKE_DIMS]! += h & 0x100 ? 1 : -1;
  }
  return v;
}

/** A running fake server; `down` makes it answer 503; `inputs` are every text it embedded. */
export async function startFakeEmbeddings(opts: { apiKey?: string } = {}) {
  const state = { down: false, requests: 0, inputs: [] as string[], auth: [] as string[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.requests++;
      state.auth.push(String(req.headers.authorization ?? ''));
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: 'not found' });
      if (state.down) return send(503, { error: { message: 'model is loading' } });
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        return send(401, { error: { message: 'bad key' } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        model: string;
        input: string | string[];
      };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      state.inputs.push(...input);
      send(200, {
        object: 'list',
        model: body.model,
        data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t) })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
