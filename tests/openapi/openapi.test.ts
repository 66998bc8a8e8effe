import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../adapters/http/openapi/operations.ts';
import { CLIENT_OPERATIONS } from '../../sdk/index.ts';
import { composedApp } from './compose.ts';
import { compareRoutes, documentedRoutes, openApiProblems } from './routes.ts';

const BASE = 'http://127.0.0.1:3000';
const getDoc = async (app: { request: (u: string) => Response | Promise<Response> }) =>
  (await (await app.request(`${BASE}/api/v1/openapi.json`)).json()) as any;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 and documents exactly the routes the composed app serves', async () => {
    const { app } = await composedApp();
    const doc = await getDoc(app);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.3');
    expect(openApiProblems(doc)).toBeNull();
    const broken = structuredClone(doc);
    delete broken.paths['/api/v1/health'].get.responses['200'].description;
    expect(openApiProblems(broken)).toMatch(/description/);
    expect(compareRoutes(app, doc)).toEqual({ undocumented: [], notServed: [] });
    expect(new Set(OPERATIONS.map((o) => o.id)).size).toBe(OPERATIONS.length);
  });

  it('the check fails for a served route missing from the document, and for a documented one not served', async () => {
    const { app } = await composedApp();
    const doc = await getDoc(app);
    const extra = new Hono().route('/', app as unknown as Hono);
    extra.get('/api/v1/undocumented/:id', (c) => c.text('x'));
    expect(compareRoutes(extra, doc).undocumented).toEqual(['GET /api/v1/undocumented/{id}']);
    const fewer = { routes: app.routes.filter((r) => r.path !== '/api/v1/search') };
    expect(compareRoutes(fewer, doc).notServed).toEqual(['GET /api/v1/search']);
  });

  it('request bodies are the schemas the routes validate with', async () => {
    const { app } = await composedApp();
    const doc = await getDoc(app);
    const chat = doc.components.schemas.ChatBody;
    expect(chat.required).toEqual(['message']);
    expect(chat.properties.message.maxLength).toBe(20_000);
    expect(chat.properties.channel.enum).toEqual(['telegram', 'whatsapp', 'web']);
    // The route rejects what the document says is too long.
    const res = await app.request(`${BASE}/api/v1/agent/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x'.repeat(20_001) }),
    });
    expect(res.status).toBe(401); // protected first
    expect(doc.paths['/api/v1/agent/chat'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ChatBody',
    });
  });

  it('a PUT names its base: the body documents it, the answer documents what merged', async () => {
    const { app } = await composedApp();
    const doc = await getDoc(app);
    const base = doc.components.schemas.UpdateNoteBody.properties.base;
    expect(base.type).toBe('string');
    expect(base.description).toMatch(/checksum.*merged/i);
    expect(JSON.stringify(doc.components.schemas.Note)).toMatch(/"merge"/);
  });

  it("the typed client's operations are the document's", async () => {
    const { app } = await composedApp();
    const doc = await getDoc(app);
    const byId = new Map<string, string>();
    for (const r of documentedRoutes(doc)) {
      const [m, p] = r.split(' ') as [string, string];
      byId.set(doc.paths[p][m.toLowerCase()].operationId, r);
    }
    for (const [id, [method, path]] of Object.entries(CLIENT_OPERATIONS))
      expect(byId.get(id)).toBe(`${method} ${path}`);
    // Every JSON operation has a client method; the rest are pages, the document, webhooks and retired routes.
    const notInClient = [...byId.keys()].filter((id) => !(id in CLIENT_OPERATIONS)).sort();
    expect(notInClient).toEqual(
      [
        'agentToolsGone',
        'channelHandshake',
        'channelWebhook',
        'docs',
        'docsScript',
        'foldersGone',
        'liveLeave',
        'livePoll',
        'liveSend',
        'openapi',
        'oauthProtectedResource',
        'oauthAuthorizationServer',
        'oauthRegister',
        'oauthAuthorize',
        'oauthConsent',
        'oauthToken',
        'oauthRevoke',
      ].sort(),
    );
  });
});
