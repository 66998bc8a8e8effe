/**
 * How many of the project's source files one request crosses: the real Node server with its
 * embedded relay in this process, V8's precise coverage reset before a request and taken after
 * it, and every source file with a function that ran counted. Three requests of each kind, each
 * of a note not read before; a file counts only if it ran in all three (a timer or heartbeat that
 * happens to fire during one request is not the request's path).
 *
 * - relayed read: `GET /r/<serverId>/api/v1/notes/<path>` through the relay, of a note never read;
 * - MCP search with a folder key: `tools/call search` on `/mcp` with a key limited to one folder.
 *
 * Both are measured twice, on two servers in this process: the plain path (HOT_ROUTES=0: Hono
 * routes only) and the default (the hot routes asked first). Each count has a ceiling (CEILINGS):
 * above it the script says which and exits 1, so a file added to the way of a request is a
 * decision, not a drift (tests/house/request-files.test.ts runs it).
 *
 * Usage: npx tsx bench/request-files.ts [--list]   (--list prints the files, in the order first run)
 */
import { Session } from 'node:inspector/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../deploy/node/server.ts';
import { loadConfig } from '../deploy/shared/config/server.ts';
import { tempDir } from '../tests/helpers/app.ts';
import { capturingLogger } from '../tests/helpers/logger.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SOURCE = ['core', 'http-kit', 'adapters', 'relay', 'deploy', 'sdk', 'client-link/src'];
const LIST = process.argv.includes('--list');

/**
 * The most files each request may cross, per mode: today's counts (docs/reference/architecture.md
 * walks them). Lower a ceiling when a change brings a count down; raise one only with the reason.
 */
const CEILINGS: Record<string, Record<'read' | 'mcp', number>> = {
  // MCP +2: a search's snippets are made readable (core/notes/markdown/readable.ts) by a snippet
  // module of their own (core/search/lexical/snippet.ts), so answers quote text, not markup. Search
  // in one home (decision 0028) kept the MCP counts: its query side is called without the index's
  // class, and the snapshot's lists are asked for only when not read yet.
  // Read and MCP +1: the key check moved out of createApp into adapters/http/authenticate.ts when it
  // took a person's session cookie and its CSRF rule (createApp stays under 150 lines).
  // Read -2 (plain) and -2 (hot): counted after a quiet window, the start's and the set-up's
  // background work (loading.ts, paths.ts, crypto.ts) no longer counts as the request's.
  plain: { read: 43, mcp: 42 },
  hot: { read: 47, mcp: 44 },
};

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** The project's source files with a function that ran since the last call, in first-seen order. */
async function ranSinceLast(): Promise<string[]> {
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files: string[] = [];
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = relative(ROOT, fileURLToPath(script.url));
    if (file.startsWith('..') || file.includes('node_modules')) continue;
    if (!SOURCE.some((r) => file.startsWith(`${r}/`))) continue;
    if (script.functions.some((f) => f.ranges.some((r) => r.count > 0))) files.push(file);
  }
  return files;
}

/**
 * Waits for a window of 200 ms in which no project code ran (at most 10 s): the work a start or the
 * set-up's writes leave behind (the watcher seeing those files, a snapshot save) ran beside the
 * measured requests on a busy machine and was counted as theirs (loading.ts, paths.ts, crypto.ts).
 */
async function quiet(): Promise<void> {
  const until = Date.now() + 10_000;
  await ranSinceLast();
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    if ((await ranSinceLast()).length === 0) return;
  }
}

async function crossed(label: string, run: (i: number) => Promise<void>) {
  const seen: string[][] = [];
  for (let i = 0; i < 3; i++) {
    await quiet();
    await ranSinceLast();
    await run(i);
    seen.push(await ranSinceLast());
  }
  const all = seen[0]!.filter((f) => seen.every((s) => s.includes(f)));
  process.stdout.write(`${label}: ${all.length} files\n`);
  if (LIST) for (const f of all) process.stdout.write(`  ${f}\n`);
  return all.length;
}

const over: string[] = [];
for (const mode of ['plain', 'hot'] as const) {
  const counts = await measure(mode);
  for (const kind of ['read', 'mcp'] as const)
    if (counts[kind] > CEILINGS[mode]![kind])
      over.push(`${mode} ${kind}: ${counts[kind]} files, ceiling ${CEILINGS[mode]![kind]}`);
}
session.disconnect();
if (over.length) {
  process.stderr.write(
    `request-files: over the ceiling (bench/request-files.ts CEILINGS):\n  ${over.join('\n  ')}\n`,
  );
  process.exit(1);
}

/** One server with HOT_ROUTES for `mode`: the files of a relayed read and of an MCP scoped search. */
async function measure(mode: 'plain' | 'hot') {
  const counts = { read: 0, mcp: 0 };
  const tmp = await tempDir('quire-request-files-');
  const config = loadConfig({
    PORT: '0',
    RELAY_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: join(tmp.dir, 'data'),
    LOG_LEVEL: 'warn',
    HOT_ROUTES: mode === 'hot' ? '1' : '0',
  });
  const server = await startServer(config, { logger: capturingLogger().logger });
  try {
    await server.ready;
    const setup = (await (await fetch(`${server.url}/api/v1/system/setup`)).json()).data;
    const key = setup.apiKey as string;
    const direct = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, {
        ...init,
        headers: { 'x-service-key': key, 'content-type': 'application/json', ...init.headers },
      });
    for (let i = 0; i < 200 && setup.pairing.mode === 'relay'; i++) {
      const info = (await (await direct('/api/v1/system/info')).json()).data;
      if (info.relay.state === 'online') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const relayed = `${setup.pairing.relayUrl}/r/${setup.serverId}`;
    for (let i = 0; i < 8; i++) {
      const res = await direct('/api/v1/notes', {
        method: 'POST',
        body: JSON.stringify({
          path: `Work/n${i}.md`,
          content: `# Note ${i}\n\nplanning words [[n${i + 1}]] #tag\n`,
        }),
      });
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
    }
    // Warm every lazy path once (module loads, the first tunnel stream) on notes not measured.
    for (const i of [6, 7]) {
      const r = await fetch(`${relayed}/api/v1/notes/Work%2Fn${i}.md`, { headers: { 'x-service-key': key } });
      if (r.status !== 200) throw new Error(`relayed read: ${r.status}`);
    }
    counts.read = await crossed(`${mode}: relayed read of an uncached note`, async (i) => {
      const r = await fetch(`${relayed}/api/v1/notes/Work%2Fn${i}.md`, { headers: { 'x-service-key': key } });
      if (r.status !== 200) throw new Error(`relayed read: ${r.status}`);
      await r.arrayBuffer();
    });

    const minted = await direct('/api/v1/auth/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'folder', scope: { capabilities: ['notes:read'], folders: ['Work/'] } }),
    });
    const folderKey = ((await minted.json()) as any).data?.apiKey as string | undefined;
    if (!folderKey) throw new Error(`mint a folder key: ${minted.status}`);
    const mcp = (body: unknown) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${folderKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      });
    const call = async (id: number, q: string) => {
      const r = await mcp({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'search_notes', arguments: { query: q } },
      });
      const text = await r.text();
      if (r.status !== 200 || !text.includes('result')) throw new Error(`mcp search: ${r.status} ${text}`);
    };
    await call(1, 'warm');
    counts.mcp = await crossed(`${mode}: MCP search with a folder key`, async (i) =>
      call(10 + i, `planning ${i}`),
    );
  } finally {
    await server.stop();
    await tmp.cleanup();
  }
  return counts;
}
