/**
 * A search's input is checked once, where it comes in, by the schemas of core/search/schemas.ts:
 * the REST routes on their query strings, MCP's search_notes on its arguments, the plugin host
 * on a plugin's call. Each refusal is a 400 VALIDATION_ERROR (or an MCP tool error) naming the
 * field in `details.issues`, and what passes reaches the retrieval and the note service typed.
 */
import { describe, expect, it } from 'vitest';
import { pluginNotes } from '../../core/plugins/host.ts';
import { memoryApp } from '../helpers/app.ts';

const VAULT = { 'a.md': '# Tomato\n\nred fruit\n', 'b.md': '# Basil\n\ngreen leaves and tomato\n' };

describe('search input checked at the edge', () => {
  it('REST: a bad q, limit or mode is a 400 naming the field; a good one is typed through', async () => {
    const { call } = await memoryApp(VAULT);
    const cases: [string, string][] = [
      ['/api/v1/search', 'q'],
      ['/api/v1/search?q=%20%09', 'q'],
      ['/api/v1/search?q=tomato&limit=0', 'limit'],
      ['/api/v1/search?q=tomato&limit=101', 'limit'],
      ['/api/v1/search?q=tomato&limit=2.5', 'limit'],
      ['/api/v1/search?q=tomato&limit=', 'limit'],
      ['/api/v1/search?q=tomato&mode=fuzzy', 'mode'],
      ['/api/v1/notes/a.md/related?limit=abc', 'limit'],
    ];
    for (const [url, field] of cases) {
      const r = await call('GET', url);
      expect([url, r.status, r.json.error.code]).toEqual([url, 400, 'VALIDATION_ERROR']);
      expect(r.json.error.details.issues[0].field, url).toBe(field);
      expect(r.json.error.message, url).toContain(`Invalid ${field}:`);
    }
    const ok = await call('GET', '/api/v1/search?q=tomato&limit=1&mode=lexical&other=ignored');
    expect(ok.status).toBe(200);
    expect(ok.json.data.map((h: { path: string }) => h.path)).toEqual(['a.md']);
    const empty = await call('GET', '/api/v1/search?q=tomato&mode=');
    expect([empty.status, empty.headers.get('x-search-mode')]).toEqual([200, 'lexical']);
    const related = await call('GET', '/api/v1/notes/a.md/related?limit=5');
    expect(related.status).toBe(200);
  });

  it('MCP: search_notes refuses a blank query and a limit out of bounds with the same words', async () => {
    const { call } = await memoryApp(VAULT);
    const tool = async (args: Record<string, unknown>) =>
      (
        await call(
          'POST',
          '/mcp',
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'search_notes', arguments: args },
          },
          { accept: 'application/json, text/event-stream' },
        )
      ).json.result;
    for (const [args, field] of [
      [{ query: '   ' }, 'query'],
      [{ query: 'tomato', limit: 0 }, 'limit'],
      [{ query: 'tomato', limit: 101 }, 'limit'],
      [{ query: 'tomato', limit: 1.5 }, 'limit'],
    ] as const) {
      const r = await tool(args);
      expect(r.isError).toBe(true);
      expect(r.structuredContent.error.code).toBe('VALIDATION_ERROR');
      expect(r.structuredContent.error.details.issues[0].field).toBe(field);
    }
    const limit = await tool({ query: 'tomato', limit: 0 });
    expect(limit.structuredContent.error.message).toBe('Invalid limit: must be an integer from 1 to 100.');
    const ok = await tool({ query: 'tomato', limit: 1 });
    expect(ok.structuredContent.results.map((h: { path: string }) => h.path)).toEqual(['a.md']);
  });

  it("a plugin's notes.search is checked the same way before the note service runs it", async () => {
    const { notes } = await memoryApp(VAULT);
    const plugin = pluginNotes(notes, 'unlinked-mentions', ['notes:read']);
    await expect(plugin.search('  ')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { issues: [expect.objectContaining({ field: 'q' })] },
    });
    await expect(plugin.search('tomato', 1000)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { issues: [expect.objectContaining({ field: 'limit' })] },
    });
    expect((await plugin.search('tomato', 1)).map((h) => h.path)).toEqual(['a.md']);
  });
});
