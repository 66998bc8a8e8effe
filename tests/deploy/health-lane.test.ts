import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURE_HEADERS } from '../../http-kit/secure-headers.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

describe('health on the Node server (answered on node:http directly)', () => {
  let s: LiveServer;
  beforeAll(async () => {
    s = await liveServer({ PAIRING_MODE: 'open-port', CORS_ORIGINS: 'http://localhost:5173' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('answers the same body and headers as the app, with a request id and a log line', async () => {
    const res = await fetch(`${s.url}/api/v1/health`, { headers: { 'x-request-id': 'probe-1' } });
    expect(res.status).toBe(200);
    for (const [name, value] of Object.entries(SECURE_HEADERS)) expect(res.headers.get(name)).toBe(value);
    expect(res.headers.get('x-request-id')).toBe('probe-1');
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const body = (await res.json()) as { success: boolean; data: Record<string, unknown> };
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({ status: 'ok', notes: 0, index: { state: 'ready', done: 0, total: 0 } });
    expect(Object.keys(body.data).sort()).toEqual([
      'embeddings',
      'history',
      'index',
      'notes',
      'status',
      'uptimeSeconds',
      'version',
    ]);
    expect(body.data.embeddings).toEqual({ state: 'off' });
    expect(body.data.history).toMatchObject({ state: expect.stringMatching(/^(on|off)$/) });
    expect(s.logs.some((l) => l.includes('"requestId":"probe-1"') && l.includes('"status":200'))).toBe(true);
    const bad = await fetch(`${s.url}/api/v1/health`, { headers: { 'x-request-id': 'bad id!' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves browser requests (Origin), other methods and query strings to the app', async () => {
    const browser = await fetch(`${s.url}/api/v1/health`, { headers: { origin: 'http://localhost:5173' } });
    expect(browser.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(browser.headers.get('vary')).toMatch(/origin/i);
    expect(((await browser.json()) as { data: { status: string } }).data.status).toBe('ok');
    const post = await fetch(`${s.url}/api/v1/health`, { method: 'POST' });
    expect(post.status).toBe(401); // the app: POST is not a public route
    const q = await fetch(`${s.url}/api/v1/health?x=1`);
    expect(q.status).toBe(200);
    expect(q.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
