import { type LoadResult, type LoadSettings, runLoad } from './load.ts';
import { runNativeLoad } from './native-load.ts';
import { probe } from './update.ts';
import { createRng } from './vault-text.ts';

/** The allowed web-client origin the server is started with (CORS_ORIGINS). */
export const BROWSER_ORIGIN = 'http://localhost:5173';

/** What the route load tests found, plus the sizes of the answers. */
export interface RoutesResult {
  loads: LoadResult[];
  listBytes: number;
  noteBytes: number;
  /** The request paths of the 100 hot notes. */
  hotPaths: string[];
}

/**
 * Load tests of the read routes of a running server: one note (every note in a shuffled
 * round robin, then 100 hot notes), the note list, and the list's 304, with 32 connections;
 * the list and its 304 also with one connection (their latency without queueing).
 */
export async function measureRoutes(opts: {
  base: string;
  notePaths: string[];
  seed: number;
  load: LoadSettings;
  serverCpuUs: () => Promise<number>;
  log: (line: string) => void;
}): Promise<RoutesResult> {
  const { base } = opts;
  const rng = createRng(opts.seed);
  const paths = [...opts.notePaths];
  for (let i = paths.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [paths[i], paths[j]] = [paths[j]!, paths[i]!];
  }
  const noteUrls = paths.map((p) => `/api/v1/notes/${encodeURIComponent(p)}`);
  const first = await probe(base + noteUrls[0]);
  const list = await probe(`${base}/api/v1/notes`);
  if (first.status !== 200 || list.status !== 200 || !list.etag) {
    throw new Error(`sanity check failed: note ${first.status}, list ${list.status} etag ${list.etag}`);
  }
  const loads: LoadResult[] = [];
  const load = async (
    label: string,
    t: Parameters<typeof runLoad>[1],
    connections = opts.load.connections,
  ) => {
    const r = await runLoad(label, t, { ...opts.load, connections }, opts.serverCpuUs);
    opts.log(`${label}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
    loads.push(r);
  };
  await load('GET note (all notes, round robin)', { url: base, paths: noteUrls });
  await load('GET note (100 hot notes)', { url: base, paths: noteUrls.slice(0, 100) });
  // A browser (the web client) sends Origin, which switches the CORS middleware on.
  const origin = { origin: BROWSER_ORIGIN };
  await load('GET note (100 hot notes), browser Origin', {
    url: base,
    paths: noteUrls.slice(0, 100),
    headers: origin,
  });
  // Megabytes per answer: autocannon's JavaScript HTTP parser would be the bottleneck.
  for (const connections of [opts.load.connections, 1]) {
    const label = `GET /notes${connections === 1 ? ', 1 connection' : ''} (node:http client)`;
    const target = { url: base, path: '/api/v1/notes' };
    const r = await runNativeLoad(label, target, { ...opts.load, connections }, opts.serverCpuUs);
    opts.log(`${label}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
    loads.push(r);
  }
  const notModified = {
    url: base,
    paths: ['/api/v1/notes'],
    headers: { 'if-none-match': list.etag },
    expectStatus: 304,
  };
  await load('GET /notes, If-None-Match (304)', notModified);
  await load('GET /notes, If-None-Match (304), 1 connection', notModified, 1);
  return { loads, listBytes: list.bytes, noteBytes: first.bytes, hotPaths: noteUrls.slice(0, 100) };
}
