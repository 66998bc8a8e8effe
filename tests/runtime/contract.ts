import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A Quire server running on some runtime, reachable over a real socket. */
export interface RunningRuntime {
  /** The runtime's name as `GET /api/v1/system/info` must report it. */
  runtime: 'node' | 'bun' | 'deno' | 'workerd';
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /**
   * The vault folder when notes are files and a watcher picks up outside edits (checked there),
   * or the reason why the runtime has none.
   */
  vaultDir: string | { none: string };
  /** Whether the built client UI is served at /link (false: the reason why not). */
  clientUi: true | string;
  /** Whether the relay runs in the same process (false: the reason why not). */
  embeddedRelay: true | string;
  /** Stops the server; resolves once it is gone. */
  stop(): Promise<void>;
}

type Json = Record<string, any>;
const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/**
 * The HTTP surface that must hold on every runtime: setup, verify, link, notes CRUD with nested
 * encoded paths, list with backlinks, the folder tree, search, the agent, the security audit,
 * and the error envelope. The cases run in order against one fresh server from `start`.
 * Only the features a runtime declares it lacks by design (`clientUi`, `embeddedRelay`,
 * `vaultDir` given as a reason) are skipped, with that reason; anything else that is missing
 * (a route answering 404, say) fails.
 */
export function runRuntimeContract(name: string, start: () => Promise<RunningRuntime>): void {
  describe(`runtime contract: ${name}`, () => {
    let rt: RunningRuntime;
    let key = '';
    let firstKey = '';
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const h: Record<string, string> = { 'x-service-key': key, ...headers };
      let payload: string | undefined;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        h['content-type'] = 'application/json';
      }
      const res = await fetch(`${rt.url}${path}`, { method, headers: h, body: payload });
      const text = await res.text();
      let json: Json | null = null;
      try {
        json = JSON.parse(text);
      } catch {}
      return { status: res.status, headers: res.headers, json: json as Json, text };
    };
    const expectError = (r: { status: number; json: Json }, status: number, code: string) => {
      expect({ status: r.status, success: r.json?.success, code: r.json?.error?.code }).toEqual({
        status,
        success: false,
        code,
      });
      expect(typeof r.json.error.message).toBe('string');
    };

    beforeAll(async () => {
      rt = await start();
    });
    afterAll(async () => {
      await rt?.stop();
    });

    it('health and system info name this runtime', async () => {
      const health = await call('GET', '/api/v1/health');
      expect(health.status).toBe(200);
      expect(health.json.data).toMatchObject({ status: 'ok', version: VERSION, index: { state: 'ready' } });
      const setup = (await call('GET', '/api/v1/system/setup')).json.data;
      key = firstKey = setup.apiKey;
      const info = await call('GET', '/api/v1/system/info');
      expect(info.status).toBe(200);
      expect(info.json.data.runtime.name).toBe(rt.runtime);
    });

    it('setup shows the first key and links until setup is complete', async () => {
      const r = await call('GET', '/api/v1/system/setup', undefined, { 'x-service-key': '' });
      expect(r.status).toBe(200);
      const d = r.json.data;
      expect(d.apiKey).toMatch(/^quire_sk_[A-Za-z0-9_-]{43,}$/);
      expect(d).toMatchObject({ setupComplete: false, auth: { method: 'api-key', header: 'X-Service-Key' } });
      expect(d.server.url).toBe(rt.url);
      expect(d.server.port).toBe(Number(new URL(rt.url).port));
      expect(d.links.directApiBase).toBe(`${rt.url}/api/v1`);
      expect(['relay', 'open-port']).toContain(d.pairing.mode);
      expect(d.instructions.length).toBeGreaterThan(0);
    });

    it('protected routes refuse a missing or wrong key', async () => {
      expectError(
        await call('GET', '/api/v1/notes', undefined, { 'x-service-key': '' }),
        401,
        'UNAUTHORIZED',
      );
      const wrong = `quire_sk_${'A'.repeat(43)}`;
      expectError(
        await call('GET', '/api/v1/notes', undefined, { 'x-service-key': wrong }),
        401,
        'INVALID_API_KEY',
      );
    });

    it('verify checks a key', async () => {
      const bad = await call('POST', '/api/v1/auth/verify', undefined, { 'x-service-key': 'quire_sk_nope' });
      expectError(bad, 401, 'INVALID_API_KEY');
      const good = await call('POST', '/api/v1/auth/verify');
      expect(good.status).toBe(200);
      expect(good.json.data).toMatchObject({ valid: true, setupComplete: false });
    });

    it('pairs a client through the embedded relay', async (ctx) => {
      if (rt.embeddedRelay !== true) ctx.skip(rt.embeddedRelay);
      const setup = (await call('GET', '/api/v1/system/setup')).json.data;
      const res = await fetch(`${setup.pairing.relayUrl}/api/v1/pair/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: setup.pairing.relayCode }),
      });
      const paired = ((await res.json()) as Json).data;
      expect(paired.serverId).toBe(setup.serverId);
      const list = await fetch(`${paired.serverUrl}/api/v1/notes`, {
        headers: { 'x-service-key': paired.apiKey },
      });
      expect(list.status).toBe(200);
    });

    it('link completes setup; the setup payload then redacts the key', async () => {
      const r = await call('POST', '/api/v1/auth/link');
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({ setupComplete: true });
      const d = (await call('GET', '/api/v1/system/setup')).json.data;
      expect(d.setupComplete).toBe(true);
      expect(d.apiKey).not.toBe(firstKey);
      expect(d.apiKey).toContain('…');
      expect(d.instructions).toBeUndefined();
      expect((await call('POST', '/api/v1/auth/verify')).json.data.setupComplete).toBe(true);
    });

    const plan = 'projects/2026/plan ü.md';
    const planUrl = `/api/v1/notes/${encodeURIComponent(plan)}`;

    it('creates, reads and updates notes at nested encoded paths', async () => {
      const created = await call('POST', '/api/v1/notes', {
        path: plan,
        content: '# Garden plan\n\nCompost first, then [[idea]]. #garden',
      });
      expect(created.status).toBe(201);
      expectError(
        await call('POST', '/api/v1/notes', { path: plan, content: 'x' }),
        409,
        'NOTE_ALREADY_EXISTS',
      );
      const idea = await call('POST', '/api/v1/notes', {
        path: 'ideas/idea.md',
        content: 'An idea about compost.',
        frontmatter: { title: 'The idea', tags: ['seed'] },
      });
      expect(idea.status).toBe(201);

      const got = await call('GET', planUrl);
      expect(got.status).toBe(200);
      expect(got.json.data).toMatchObject({
        path: plan,
        title: 'Garden plan',
        tags: ['garden'],
        frontmatter: {},
      });
      expect(got.json.data.content).toContain('Compost first');
      expect(got.json.data.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(got.headers.get('etag')).toContain(got.json.data.checksum);
      const stale = await call('PUT', planUrl, { content: 'lost' }, { 'if-match': `"${'0'.repeat(64)}"` });
      expectError(stale, 412, 'PRECONDITION_FAILED');
      const put = await call(
        'PUT',
        planUrl,
        { content: '# Garden plan\n\nCompost first, then [[idea]] and [[later]]. #garden' },
        { 'if-match': `"${got.json.data.checksum}"` },
      );
      expect(put.status).toBe(200);
      expect(put.json.data.links.map((l: Json) => [l.target, l.path])).toEqual([
        ['idea', 'ideas/idea.md'],
        ['later', null],
      ]);
    });

    it('lists notes with links and backlinks', async () => {
      const r = await call('GET', '/api/v1/notes');
      expect(r.status).toBe(200);
      expect(r.json.data.map((n: Json) => n.path)).toEqual(['ideas/idea.md', plan]);
      const idea = r.json.data[0];
      expect(idea).toMatchObject({ title: 'The idea', tags: ['seed'] });
      expect(idea.backlinks).toEqual([{ path: plan, title: 'Garden plan' }]);
      expect(typeof idea.wordCount).toBe('number');
      expect(idea.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('serves the folder tree and a subtree', async () => {
      const root = await call('GET', '/api/v1/folders/tree');
      expect(root.status).toBe(200);
      expect(root.json.data).toMatchObject({ path: '', type: 'folder', noteCount: 2 });
      expect(root.json.data.children.map((c: Json) => c.path)).toEqual(['ideas', 'projects']);
      const sub = await call('GET', `/api/v1/folders/tree/${encodeURIComponent('projects/2026')}`);
      expect(sub.json.data).toMatchObject({ name: '2026', path: 'projects/2026', noteCount: 1 });
      expect(sub.json.data.children).toEqual([
        { name: 'plan ü.md', path: plan, type: 'note', title: 'Garden plan' },
      ]);
      expectError(await call('GET', '/api/v1/folders/tree/nowhere'), 404, 'FOLDER_NOT_FOUND');
    });

    it('searches', async () => {
      const r = await call('GET', '/api/v1/search?q=compost');
      expect(r.status).toBe(200);
      expect(r.json.data.map((h: Json) => h.path).sort()).toEqual(['ideas/idea.md', plan]);
      expect(r.json.data[0].snippet.toLowerCase()).toContain('compost');
    });

    it('section PATCH, tags, the long-poll feed, and the MCP endpoint (SDK client)', async () => {
      const ideaUrl = `/api/v1/notes/${encodeURIComponent('ideas/idea.md')}`;
      const start = await call('GET', '/api/v1/events', undefined, { accept: 'application/json' });
      const patched = await call('PATCH', ideaUrl, {
        operation: 'replace',
        target: { type: 'frontmatter', key: 'status' },
        content: 'ripe',
      });
      expect([patched.status, patched.json.data.frontmatter.status]).toEqual([200, 'ripe']);
      const feed = await call('GET', `/api/v1/events?after=${start.json.data.next}&wait=5`, undefined, {
        accept: 'application/json',
      });
      expect(feed.json.data.events.map((e: Json) => [e.type, e.data.path])).toEqual([
        ['note.updated', 'ideas/idea.md'],
      ]);
      expect((await call('GET', '/api/v1/tags')).json.data).toEqual([
        { tag: 'garden', count: 1 },
        { tag: 'seed', count: 1 },
      ]);
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      const client = new Client({ name: 'contract', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${rt.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      // The ten note tools everywhere; the four history tools only where the runtime keeps a history.
      const names = (await client.listTools()).tools.map((t) => t.name);
      const history = ['list_versions', 'restore_version', 'list_trash', 'restore_from_trash'];
      expect(names.filter((n) => !history.includes(n))).toHaveLength(10);
      expect([0, 4]).toContain(names.filter((n) => history.includes(n)).length);
      const read = await client.callTool({ name: 'read_note', arguments: { path: 'ideas/idea.md' } });
      expect((read.structuredContent as Json).frontmatter.status).toBe('ripe');
      await client.close();
    });

    it('answers agent status and a chat with the local provider', async () => {
      const status = await call('GET', '/api/v1/agent/status');
      expect(status.json.data).toMatchObject({
        enabled: true,
        provider: 'local',
        model: 'quire-local-rules',
      });
      const chat = await call('POST', '/api/v1/agent/chat', {
        message: 'What do my notes say about compost?',
        channel: 'web',
      });
      expect(chat.status).toBe(200);
      expect(chat.json.data).toMatchObject({ provider: 'local' });
      expect(chat.json.data.relatedNotes.map((n: Json) => n.path)).toContain(plan);
      expect(chat.json.data.actions.map((a: Json) => a.type)).toContain('search_notes');
    });

    it('reports the security audit', async () => {
      const r = await call('GET', '/api/v1/security/audit');
      expect(r.status).toBe(200);
      const audit = r.json.data;
      expect(Number.isInteger(audit.score) && audit.score >= 0 && audit.score <= 100).toBe(true);
      for (const s of ['critical', 'high', 'medium', 'low', 'info'])
        expect(typeof audit.summary[s]).toBe('number');
      expect(Array.isArray(audit.findings)).toBe(true);
    });

    it('answers bad input with the error envelope, never a 500', async () => {
      expectError(await call('POST', '/api/v1/notes', '{"path": "x.md",'), 400, 'INVALID_JSON');
      const missing = await call('POST', '/api/v1/notes', { content: 'no path' });
      expectError(missing, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(missing.json.error)).toContain('path');
      expectError(
        await call('GET', `/api/v1/notes/${encodeURIComponent('../etc/passwd.md')}`),
        400,
        'INVALID_PATH',
      );
      expectError(
        await call('POST', '/api/v1/notes', { path: 'no-extension', content: 'x' }),
        400,
        'INVALID_PATH',
      );
      expectError(await call('POST', '/api/v1/agent/chat', { message: '' }), 400, 'VALIDATION_ERROR');
      expectError(await call('GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND');
      expectError(await call('PATCH', '/api/v1/notes'), 405, 'METHOD_NOT_ALLOWED');
      expectError(await call('GET', '/api/v1/agent/tools'), 410, 'GONE');
    });

    it('deletes a note (into the trash) and updates the backlinks', async () => {
      const r = await call('DELETE', planUrl);
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({ deleted: plan });
      expectError(await call('GET', planUrl), 404, 'NOTE_NOT_FOUND');
      const idea = await call('GET', '/api/v1/notes/ideas%2Fidea.md');
      expect(idea.json.data.backlinks).toEqual([]);
    });

    it('picks up a note written into the vault by another program', async (ctx) => {
      if (typeof rt.vaultDir !== 'string') return ctx.skip(rt.vaultDir.none);
      await writeFile(join(rt.vaultDir, 'outside.md'), '# From outside\n[[idea]]');
      const deadline = Date.now() + 5000;
      let paths: string[] = [];
      while (Date.now() < deadline && !paths.includes('outside.md')) {
        paths = (await call('GET', '/api/v1/notes')).json.data.map((n: Json) => n.path);
        if (!paths.includes('outside.md')) await new Promise((r) => setTimeout(r, 50));
      }
      expect(paths).toContain('outside.md');
      const idea = await call('GET', '/api/v1/notes/ideas%2Fidea.md');
      expect(idea.json.data.backlinks).toEqual([{ path: 'outside.md', title: 'From outside' }]);
    });

    it('serves the client UI at /link', async (ctx) => {
      if (rt.clientUi !== true) ctx.skip(rt.clientUi);
      const res = await fetch(`${rt.url}/link`);
      const body = await res.text();
      // 503 NOT_READY when client-link/dist is not built (npm test builds it first).
      if (res.status === 503) expect(JSON.parse(body).error.code).toBe('NOT_READY');
      else {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/html');
        expect(body).toContain('<html');
      }
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    });
  });
}
