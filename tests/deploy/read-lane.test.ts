import { mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../deploy/node/server.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { tempDir } from '../helpers/app.ts';
import { capturingLogger } from '../helpers/live-server.ts';

const ORIGIN = 'http://localhost:5173';
const NOTES: Record<string, string> = {
  'a.md': '# A\nSee [[b]] and [[folder/with space]].',
  'b.md': '---\ntitle: Bee\ntags: [x]\n---\nBack to [[a]].',
  'folder/with space.md': '# Spaced\nÜmlauts and emoji 🎉 [[a]]',
  'folder/c.md': '# C\n![[a]]',
};

/** The exact bytes of the answer to `head` (a request without body, sent with Connection: close). */
function rawGet(url: string, target: string, headers: Record<string, string>): Promise<Buffer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname, () => {
      const lines = [`GET ${target} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      sock.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const parts: Buffer[] = [];
    sock.on('data', (d) => parts.push(d));
    sock.on('end', () => resolve(Buffer.concat(parts)));
    sock.on('error', reject);
  });
}

/** The answer with its Date line blanked (the two servers may answer in different seconds). */
const normalized = (b: Buffer) => b.toString('latin1').replace(/\r\nDate: [^\r]+\r\n/, '\r\nDate: -\r\n');

describe('the Node fast lane for note reads (adapters/node/read-lane.ts)', () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let fast: RunningServer & { key: string; logs: string[] };
  let full: RunningServer & { key: string; logs: string[] };

  const start = async (name: string, fastLanes: boolean) => {
    const { logger, lines } = capturingLogger();
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(tmp.dir, name),
      VAULT_DIR: join(tmp.dir, 'vault'),
      PAIRING_MODE: 'open-port',
      SERVICE_AUTH_MODE: 'api-key',
      CORS_ORIGINS: ORIGIN,
      LOG_LEVEL: 'info',
    });
    const server = await startServer(config, { logger, fastLanes });
    await server.ready;
    const setup = (await (await fetch(`${server.url}/api/v1/system/setup`)).json()) as any;
    return Object.assign(server, { key: setup.data.apiKey as string, logs: lines });
  };

  beforeAll(async () => {
    tmp = await tempDir('quire-lane-');
    for (const [p, text] of Object.entries(NOTES)) {
      await mkdir(join(tmp.dir, 'vault', p, '..'), { recursive: true });
      await writeFile(join(tmp.dir, 'vault', p), text);
    }
    fast = await start('fast', true);
    full = await start('full', false);
  }, 60_000);
  afterAll(async () => {
    await fast?.stop();
    await full?.stop();
    await tmp?.cleanup();
  });

  /** Sends one request to both servers (each with its own key) and returns both answers' bytes. */
  const both = async (target: string, headers: Record<string, string> = {}, key = true) => {
    const h = (s: typeof fast) => ({
      'X-Request-Id': 'diff-1',
      ...(key ? { 'X-Service-Key': s.key } : {}),
      ...headers,
    });
    return { fast: await rawGet(fast.url, target, h(fast)), full: await rawGet(full.url, target, h(full)) };
  };

  it('answers byte for byte what the full path answers: 200, 304, CORS, encoded paths, errors', async () => {
    const etag = async (target: string) => {
      const r = await fetch(fast.url + target, { headers: { 'x-service-key': fast.key } });
      await r.arrayBuffer();
      return r.headers.get('etag')!;
    };
    // Warm both: the keys are verified and the notes cached once by the full path.
    for (const s of [fast, full])
      for (const t of ['/api/v1/notes/a.md', '/api/v1/notes/folder/with%20space.md'])
        await (await fetch(s.url + t, { headers: { 'x-service-key': s.key } })).arrayBuffer();
    const a = await etag('/api/v1/notes/a.md');
    const b = await etag('/api/v1/notes/b.md'); // b is cached on fast only: full reads it
    const cases: [string, Record<string, string>, boolean?][] = [
      ['/api/v1/notes/a.md', {}],
      ['/api/v1/notes/a.md', { Origin: ORIGIN }],
      ['/api/v1/notes/a.md', { Origin: 'https://evil.example' }],
      ['/api/v1/notes/a.md', { 'If-None-Match': a }],
      ['/api/v1/notes/a.md', { 'If-None-Match': `"x", W/${a}` }],
      ['/api/v1/notes/a.md', { 'If-None-Match': '"other"' }],
      ['/api/v1/notes/a.md', { 'If-None-Match': a, Origin: ORIGIN }],
      ['/api/v1/notes/folder/with%20space.md', {}],
      ['/api/v1/notes/folder%2Fwith%20space.md', {}],
      ['/api/v1/notes/b.md', {}],
      ['/api/v1/notes/b.md', { 'If-None-Match': b }],
      ['/api/v1/notes/folder/c.md', { 'If-None-Match': '"nope"' }],
      ['/api/v1/notes/a.md?x=1', {}],
      ['/api/v1/notes/missing.md', {}],
      ['/api/v1/notes/missing%25.md', {}],
      ['/api/v1/notes/./a.md', {}],
      ['/api/v1/notes/a.md', { 'X-Service-Key': 'quire_sk_wrong' }],
      ['/api/v1/notes/a.md', {}, false],
    ];
    for (const [target, headers, key] of cases) {
      const got = await both(target, headers, key);
      expect(normalized(got.fast), `${target} ${JSON.stringify(headers)}`).toBe(normalized(got.full));
    }
    // The lane did answer the cached and index-only cases itself.
    expect(fast.fastLaneAnswers()).toBeGreaterThanOrEqual(9);
    expect(full.fastLaneAnswers()).toBe(0);
    // And each of its answers logged the same access line as the full path's.
    const lines = (logs: string[]) =>
      logs
        .filter((l) => l.includes('"msg":"request"') && l.includes('diff-1'))
        .map((l) => l.replace(/"ms":[\d.]+/, '"ms":0'));
    expect(lines(fast.logs)).toEqual(lines(full.logs));
  });

  it('a new request id when none or a bad one is sent, as the full path does', async () => {
    await (
      await fetch(`${fast.url}/api/v1/notes/a.md`, { headers: { 'x-service-key': fast.key } })
    ).arrayBuffer();
    const before = fast.fastLaneAnswers();
    const res = await fetch(`${fast.url}/api/v1/notes/a.md`, {
      headers: { 'x-service-key': fast.key, 'x-request-id': 'bad id!' },
    });
    await res.arrayBuffer();
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(fast.fastLaneAnswers()).toBe(before + 1);
  });

  it('feels a revoke at once, and serves a note changed on disk fresh', async () => {
    const minted = (await (
      await fetch(`${fast.url}/api/v1/auth/keys`, {
        method: 'POST',
        headers: { 'x-service-key': fast.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'laptop' }),
      })
    ).json()) as any;
    const key = minted.data.apiKey as string;
    const get = (k: string) => fetch(`${fast.url}/api/v1/notes/a.md`, { headers: { 'x-service-key': k } });
    for (let i = 0; i < 3; i++) expect((await get(key)).status).toBe(200);
    const before = fast.fastLaneAnswers();
    expect((await get(key)).status).toBe(200);
    expect(fast.fastLaneAnswers()).toBe(before + 1);
    const del = await fetch(`${fast.url}/api/v1/auth/keys/${minted.data.id}`, {
      method: 'DELETE',
      headers: { 'x-service-key': fast.key },
    });
    expect(del.status).toBe(200);
    const after = await get(key);
    expect(after.status).toBe(401);
    expect(((await after.json()) as any).error.code).toBe('INVALID_API_KEY');

    const put = await fetch(`${fast.url}/api/v1/notes/a.md`, {
      method: 'PUT',
      headers: { 'x-service-key': fast.key, 'content-type': 'application/json' },
      body: JSON.stringify({ content: '# A, changed\n' }),
    });
    expect(put.status).toBe(200);
    const fresh = (await (await get(fast.key)).json()) as any;
    expect(fresh.data.content).toBe('# A, changed\n');
  });
});
