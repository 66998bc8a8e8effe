/**
 * Test harness for plugins: an app with the plugin manager over a filesystem state dir, and
 * real loopback servers speaking the APIs plugins call (a webhook receiver that checks Standard
 * Webhooks signatures with its own HMAC code, a SearXNG-compatible search service).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createApp } from '../../adapters/http/app.ts';
import { nodeResolveHost } from '../../adapters/node/resolve-host.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import type { Agent } from '../../core/agent/agent.ts';
import { createNoteService, type NoteService } from '../../core/notes/service.ts';
import { createPluginManager, type PluginManagerDeps } from '../../core/plugins/manager.ts';
import type { Logger } from '../../core/ports.ts';
import { requester } from './app.ts';
import { silentLogger } from './logger.ts';

/** A fixed, valid Standard Webhooks secret for tests. */
export const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

/** An app with plugins over `dataDir` (a real fsStateStore) and an in-memory vault. */
export async function pluginApp(
  dataDir: string,
  opts: Partial<Omit<PluginManagerDeps, 'notes' | 'state'>> & {
    files?: Record<string, string>;
    notes?: NoteService;
    agent?: (notes: NoteService, tools: () => any[]) => Agent;
    logger?: Logger;
  } = {},
) {
  const clock = opts.clock ?? { now: () => Date.now() };
  const logger = opts.logger ?? silentLogger;
  let notes = opts.notes;
  if (!notes) {
    notes = createNoteService({ store: memoryNoteStore({ files: { ...opts.files } }), clock, logger });
    await notes.load();
  }
  const state = fsStateStore({ dir: dataDir });
  const plugins = createPluginManager({
    resolveHost: nodeResolveHost,
    version: '1.2.3',
    ...opts,
    notes,
    state,
    clock,
    logger,
  });
  await plugins.load();
  const agent = opts.agent?.(notes, plugins.tools);
  const app = createApp({ notes, plugins, agent, version: '1.2.3', clock, logger });
  const send = requester(app);
  const call = (method: string, path: string, body?: unknown) =>
    send(method, `/api/v1/plugins${path}`, { body });
  return { app, notes, plugins, state, call, send };
}

/** Every file under `dir` with its bytes and mtime, to prove nothing changed. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (!e.isFile()) {
      out[p] = 'dir';
      continue;
    }
    const s = await stat(p);
    out[p] = `${s.mtimeMs}:${(await readFile(p)).toString('base64')}`;
  }
  return out;
}

/**
 * Checks a Standard Webhooks signature independently of the code under test: HMAC-SHA256 with
 * node:crypto over `id.timestamp.body`, keyed with the base64-decoded secret.
 */
export function verifySignature(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const want = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
  return sig.split(' ').some((s) => {
    const [version, b64] = s.split(',');
    const got = Buffer.from(b64 ?? '', 'base64');
    return version === 'v1' && got.length === want.length && timingSafeEqual(got, want);
  });
}

/** One request a test server received. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback HTTP server; `answer` gets each request (numbered from 1) and gives status and JSON. */
export async function startServer(answer: (req: Received, n: number) => { status: number; body?: unknown }) {
  const got: Received[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const rec = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
    got.push(rec);
    const a = answer(rec, got.length);
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(a.body === undefined ? '' : JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    got,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A SearXNG-compatible service: `GET /search?q=&format=json` answers `{results}` for the query. */
export function startSearx(results: (q: string) => { title: string; url: string; content: string }[]) {
  return startServer((req) => {
    const u = new URL(req.url, 'http://x');
    if (req.method !== 'GET' || u.pathname !== '/search' || u.searchParams.get('format') !== 'json') {
      return { status: 404, body: { error: 'not found' } };
    }
    const q = u.searchParams.get('q') ?? '';
    return { status: 200, body: { query: q, number_of_results: 2, results: results(q) } };
  });
}
