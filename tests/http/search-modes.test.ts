import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { HELP_VAULT, semanticVault } from '../core/search/semantic-fixtures.ts';
import { memoryApp, requester } from '../helpers/app.ts';
import { startFakeEmbeddings } from '../helpers/fake-embeddings.ts';
import { silentLogger } from '../helpers/logger.ts';

const EMBED = 'Linking notes and files/Embed files.md';
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

describe('search modes and related notes without embeddings', () => {
  it('searches lexically by default, and refuses semantic modes with a way to turn them on', async () => {
    const { call } = await memoryApp(HELP_VAULT);
    const r = await call('GET', '/api/v1/search?q=canvas');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-search-mode')).toBe('lexical');
    expect(r.json.data[0].path).toBe('Plugins/Canvas.md');
    for (const mode of ['semantic', 'hybrid']) {
      const off = await call('GET', `/api/v1/search?q=canvas&mode=${mode}`);
      expect(off.status).toBe(400);
      expect(off.json.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('EMBEDDINGS_URL'),
      });
    }
    const bad = await call('GET', '/api/v1/search?q=canvas&mode=fuzzy');
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('lexical, semantic or hybrid');
  });

  it('answers related notes by links and words, 404 for an unknown note, 400 for a bad path or limit', async () => {
    const { call } = await memoryApp(HELP_VAULT);
    const r = await call('GET', `/api/v1/notes/${enc(EMBED)}/related`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-search-mode')).toBe('lexical');
    expect(r.json.data.map((h: { path: string }) => h.path)).toContain('Getting started/Sync your notes.md');
    expect(r.json.data.every((h: { path: string }) => h.path !== EMBED)).toBe(true);
    expect((await call('GET', '/api/v1/notes/nope.md/related')).json.error.code).toBe('NOTE_NOT_FOUND');
    expect((await call('GET', '/api/v1/notes/..%2Fx.md/related')).status).toBe(400);
    expect((await call('GET', `/api/v1/notes/${enc(EMBED)}/related?limit=0`)).status).toBe(400);
  });

  it('reports semantic search as off in health', async () => {
    const { call } = await memoryApp(HELP_VAULT);
    expect((await call('GET', '/api/v1/health')).json.data.embeddings).toEqual({ state: 'off' });
  });
});

describe('search modes with a fake embeddings server', () => {
  let fake: Awaited<ReturnType<typeof startFakeEmbeddings>>;
  let stop = () => {};
  beforeEach(async () => {
    fake = await startFakeEmbeddings();
  });
  afterEach(async () => {
    stop();
    await fake.close();
  });

  async function app() {
    const v = await semanticVault(fake.url);
    stop = () => v.semantic.stop();
    const clock = { now: () => Date.now() };
    const a = createApp({
      notes: v.notes,
      retrieval: v.retrieval,
      semantic: v.semantic,
      version: 't',
      clock,
      logger: silentLogger,
    });
    return { ...v, call: requester(a) };
  }

  it('shows embedding progress in health, then every mode answers', async () => {
    const t = await app();
    const h0 = await t.call('GET', '/api/v1/health');
    expect(h0.json.data.embeddings).toMatchObject({ state: 'starting', done: 0 });
    await t.semantic.start();
    await t.semantic.sync();
    const h1 = (await t.call('GET', '/api/v1/health')).json.data.embeddings;
    expect(h1.state).toBe('ready');
    expect(h1.done).toBe(h1.total);
    expect(h1.total).toBeGreaterThan(5);

    const hybrid = await t.call('GET', '/api/v1/search?q=embed%20pdf');
    expect(hybrid.headers.get('x-search-mode')).toBe('hybrid');
    expect(hybrid.json.data[0]).toMatchObject({ path: EMBED, heading: 'Embed a PDF in a note' });
    // Reciprocal rank fusion: first in both lists scores 2/61.
    expect(hybrid.json.data[0].score).toBeCloseTo(2 / 61, 5);

    const sem = await t.call(
      'GET',
      '/api/v1/search?q=put%20a%20pdf%20document%20inside%20a%20note&mode=semantic&limit=2',
    );
    expect(sem.headers.get('x-search-mode')).toBe('semantic');
    expect(sem.json.data).toHaveLength(2);
    expect(sem.json.data[0]).toMatchObject({ path: EMBED, heading: 'Embed a PDF in a note' });

    const lex = await t.call(
      'GET',
      '/api/v1/search?q=put%20a%20pdf%20document%20inside%20a%20note&mode=lexical',
    );
    expect(lex.headers.get('x-search-mode')).toBe('lexical');

    const rel = await t.call('GET', `/api/v1/notes/${enc(EMBED)}/related?limit=3`);
    expect(rel.headers.get('x-search-mode')).toBe('semantic');
    expect(rel.json.data).toHaveLength(3);
    expect(rel.json.data.every((h: { path: string }) => h.path !== EMBED)).toBe(true);
    expect(rel.json.data[0].score).toBeGreaterThan(rel.json.data[2].score);
  });

  it("gives MCP's search_notes the same modes", async () => {
    const t = await app();
    await t.semantic.start();
    await t.semantic.sync();
    const mcp = (args: Record<string, unknown>) =>
      t.call('POST', '/mcp', {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'search_notes', arguments: args },
        },
        headers: { accept: 'application/json, text/event-stream' },
      });
    const sem = await mcp({ query: 'put a pdf document inside a note', mode: 'semantic', limit: 1 });
    expect(sem.json.result.structuredContent.results).toEqual([
      expect.objectContaining({ path: EMBED, heading: 'Embed a PDF in a note' }),
    ]);
    const bad = await mcp({ query: 'pdf', mode: 'fuzzy' });
    expect(bad.json.result.isError).toBe(true);
  });

  it('keeps search working while the provider is down: hybrid answers lexical, semantic is a 502', async () => {
    const t = await app();
    await t.semantic.start();
    await t.semantic.sync();
    fake.state.down = true;
    const hybrid = await t.call('GET', '/api/v1/search?q=canvas');
    expect(hybrid.status).toBe(200);
    expect(hybrid.headers.get('x-search-mode')).toBe('lexical');
    expect(hybrid.json.data[0].path).toBe('Plugins/Canvas.md');
    const sem = await t.call('GET', '/api/v1/search?q=canvas&mode=semantic');
    expect(sem.status).toBe(502);
    expect(sem.json.error.code).toBe('EMBEDDINGS_ERROR');
  });
});
