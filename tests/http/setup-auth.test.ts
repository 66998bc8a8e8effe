import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createAuthService } from '../../core/auth/service.ts';
import { tempDir } from '../helpers/app.ts';
import { authApp } from '../helpers/auth-app.ts';

const KEY = /^quire_sk_[A-Za-z0-9_-]{43,}$/;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function allFilesText(dir: string): Promise<string> {
  let out = '';
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out += await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

describe('first boot', () => {
  it('creates the state with mode 0600 once; the second boot reuses it', async () => {
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const state = fsStateStore({ dir: tmp.dir });
    const clock = { now: Date.now };
    const a = createAuthService({ state, clock });
    expect(await a.init()).toEqual({ created: true });
    const key = a.firstKeyPlain()!;
    expect(key).toMatch(KEY);
    const { stat } = await import('node:fs/promises');
    expect((await stat(join(tmp.dir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    const b = createAuthService({ state, clock });
    expect(await b.init()).toEqual({ created: false });
    expect(b.serverId).toBe(a.serverId);
    expect(b.firstKeyPlain()).toBe(key);
    expect(await b.verifyKey(key)).not.toBeNull();
  });

  it('refuses a damaged state file and never replaces it', async () => {
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    await writeFile(join(tmp.dir, 'credentials.json'), '{"v":1,"serverId":');
    const svc = createAuthService({ state: fsStateStore({ dir: tmp.dir }), clock: { now: Date.now } });
    await expect(svc.init()).rejects.toThrow(/credentials.json .*restore it from a backup/);
    expect(await readFile(join(tmp.dir, 'credentials.json'), 'utf8')).toBe('{"v":1,"serverId":');
    await writeFile(join(tmp.dir, 'credentials.json'), JSON.stringify({ v: 1, serverId: 'x' }));
    await expect(svc.init()).rejects.toThrow(/damaged/);
  });
});

describe('setup payload', () => {
  it('relay mode before link: full key, pairing code, every link absolute, instructions', async () => {
    const { call, firstKey, service } = await authApp();
    const res = await call('GET', '/api/v1/system/setup');
    expect(res.status).toBe(200);
    const d = res.json.data;
    expect(d.apiKey).toBe(firstKey);
    expect(d).toMatchObject({
      serverId: service.serverId,
      setupComplete: false,
      version: '9.9.9',
      auth: { method: 'api-key', header: 'X-Service-Key', note: expect.any(String) },
      pairing: {
        mode: 'relay',
        relayCode: expect.stringMatching(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/),
        relayUrl: 'http://relay.test:8787',
      },
      server: { url: 'http://127.0.0.1:3000', port: 3000, host: '127.0.0.1', cors: [] },
    });
    const code = d.pairing.relayCode;
    const relayBase = `http://relay.test:8787/r/${service.serverId}/api/v1`;
    expect(d.links).toMatchObject({
      setupApi: 'http://127.0.0.1:3000/api/v1/system/setup',
      health: 'http://127.0.0.1:3000/api/v1/health',
      apiBase: relayBase,
      directApiBase: 'http://127.0.0.1:3000/api/v1',
      relayApiBase: relayBase,
    });
    for (const [name, base] of [
      ['hostedClient', 'https://app.quire.test/link'],
      ['testHostedClient', 'https://test.quire.test/link'],
      ['localDevUi', 'http://localhost:5173/link'],
    ] as const) {
      const u = new URL(d.links.connect[name]);
      expect(`${u.origin}${u.pathname}`).toBe(base);
      expect(u.searchParams.get('relayCode')).toBe(code);
      expect(u.searchParams.get('relayUrl')).toBe('http://relay.test:8787');
      expect(u.searchParams.get('apiKey')).toBeNull();
    }
    expect(d.instructions.length).toBeGreaterThan(2);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('open-port mode: no pairing code, no localDevUi, links carry serverUrl and the key until link', async () => {
    const { call, firstKey, key } = await authApp({ pairingMode: 'open-port' });
    const before = (await call('GET', '/api/v1/system/setup')).json.data;
    expect(before.pairing).toEqual({ mode: 'open-port', relayCode: null, relayUrl: null });
    expect(before.links.connect.localDevUi).toBeUndefined();
    expect(before.links.apiBase).toBe('http://127.0.0.1:3000/api/v1');
    expect(before.links.relayApiBase).toBeNull();
    const hosted = new URL(before.links.connect.hostedClient);
    expect(hosted.searchParams.get('serverUrl')).toBe('http://127.0.0.1:3000');
    expect(hosted.searchParams.get('apiKey')).toBe(firstKey);
    await call('POST', '/api/v1/auth/link', { headers: key(firstKey) });
    const after = (await call('GET', '/api/v1/system/setup')).json.data;
    expect(new URL(after.links.connect.hostedClient).searchParams.get('apiKey')).toBeNull();
    expect(JSON.stringify(after)).not.toContain(firstKey);
  });

  it('uses PUBLIC_URL, and forwarded headers only with TRUST_PROXY', async () => {
    const fwd = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'notes.example.com' };
    const plain = await authApp();
    expect((await plain.call('GET', '/api/v1/system/setup', { headers: fwd })).json.data.server.url).toBe(
      'http://127.0.0.1:3000',
    );
    const proxied = await authApp({ trustProxy: true });
    expect((await proxied.call('GET', '/api/v1/system/setup', { headers: fwd })).json.data.server.url).toBe(
      'https://notes.example.com',
    );
    const bad = { 'x-forwarded-host': 'evil.example/<script>' };
    expect((await proxied.call('GET', '/api/v1/system/setup', { headers: bad })).json.data.server.url).toBe(
      'http://127.0.0.1:3000',
    );
    const pub = await authApp({ publicUrl: 'https://q.example.org/base' });
    const d = (await pub.call('GET', '/api/v1/system/setup', { headers: fwd })).json.data;
    expect(d.server.url).toBe('https://q.example.org/base');
    expect(d.links.health).toBe('https://q.example.org/base/api/v1/health');
  });
});

describe('verify and link', () => {
  it('verify answers for the right key and 401 for a wrong or missing one', async () => {
    const { call, firstKey, key, service } = await authApp();
    const good = await call('POST', '/api/v1/auth/verify', { headers: key(firstKey) });
    expect(good.status).toBe(200);
    expect(good.json.data).toEqual({ valid: true, serverId: service.serverId, setupComplete: false });
    const wrong = await call('POST', '/api/v1/auth/verify', { headers: key(`${firstKey.slice(0, -1)}x`) });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('INVALID_API_KEY');
    const missing = await call('POST', '/api/v1/auth/verify');
    expect(missing.status).toBe(401);
    expect(missing.json.error.code).toBe('UNAUTHORIZED');
  });

  it('link flips setupComplete once, redacts the key, and is idempotent', async () => {
    const { call, firstKey, key } = await authApp();
    expect((await call('POST', '/api/v1/auth/link')).status).toBe(401);
    const first = await call('POST', '/api/v1/auth/link', { headers: key(firstKey) });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ setupComplete: true, linkedAt: expect.any(String) });
    const second = await call('POST', '/api/v1/auth/link', { headers: key(firstKey) });
    expect(second.json.data.linkedAt).toBe(first.json.data.linkedAt);
    const setup = (await call('GET', '/api/v1/system/setup')).json.data;
    expect(setup.setupComplete).toBe(true);
    expect(setup.apiKey).toBe(`quire_sk_…${firstKey.slice(-4)}`);
    expect(setup.instructions).toBeUndefined();
    expect(setup.pairing.relayCode).toBeNull();
    expect(JSON.stringify(setup)).not.toContain(firstKey);
    expect(
      (await call('POST', '/api/v1/auth/verify', { headers: key(firstKey) })).json.data.setupComplete,
    ).toBe(true);
  });

  it('erases the plain key from DATA_DIR after link', async () => {
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const { call, firstKey, key } = await authApp({ state: fsStateStore({ dir: tmp.dir }) });
    expect(await allFilesText(tmp.dir)).toContain(firstKey);
    await call('POST', '/api/v1/auth/link', { headers: key(firstKey) });
    const text = await allFilesText(tmp.dir);
    expect(text).not.toContain(firstKey);
    expect(text).not.toContain(firstKey.slice('quire_sk_'.length, -4));
  });
});

describe('device keys', () => {
  it('mint (shown once), list without secrets, authenticate, revoke', async () => {
    const { call, firstKey, key } = await authApp();
    const minted = await call('POST', '/api/v1/auth/keys', {
      body: { name: 'phone' },
      headers: key(firstKey),
    });
    expect(minted.status).toBe(201);
    const phoneKey = minted.json.data.apiKey;
    expect(phoneKey).toMatch(KEY);
    const list = await call('GET', '/api/v1/auth/keys', { headers: key(phoneKey) });
    expect(list.status).toBe(200);
    expect(list.json.data.map((k: any) => k.name)).toEqual(['first key', 'phone']);
    expect(JSON.stringify(list.json)).not.toContain(phoneKey);
    expect(JSON.stringify(list.json)).not.toContain(firstKey);
    for (const k of list.json.data)
      expect(Object.keys(k).sort()).toEqual([
        'createdAt',
        'id',
        'kind',
        'lastUsedAt',
        'name',
        'prefix',
        'scope',
      ]);
    expect(list.json.data[1].lastUsedAt).not.toBeNull();
    const del = await call('DELETE', `/api/v1/auth/keys/${minted.json.data.id}`, { headers: key(firstKey) });
    expect(del.status).toBe(200);
    expect((await call('GET', '/api/v1/notes', { headers: key(phoneKey) })).status).toBe(401);
    expect((await call('DELETE', '/api/v1/auth/keys/nope', { headers: key(firstKey) })).status).toBe(404);
    const bad = await call('POST', '/api/v1/auth/keys', { body: { name: '' }, headers: key(firstKey) });
    expect(bad.status).toBe(400);
  });

  it('refuses to revoke the last key', async () => {
    const { call, firstKey, key, service } = await authApp();
    const id = service.listKeys()[0]!.id;
    const res = await call('DELETE', `/api/v1/auth/keys/${id}`, { headers: key(firstKey) });
    expect(res.status).toBe(409);
  });
});

describe('pairing codes', () => {
  it('rotate gives a new code; a code is single use and expires', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { call, firstKey, key, service } = await authApp({ now: () => now });
    const code1 = (await service.pairCode()).code;
    const rotated = await call('POST', '/api/v1/auth/pair-code/rotate', { headers: key(firstKey) });
    expect(rotated.status).toBe(200);
    expect(rotated.json.data.relayCode).not.toBe(code1);
    expect(await service.redeemPairCode(code1)).toBeNull();
    const code2 = rotated.json.data.relayCode;
    const dev = await service.redeemPairCode(code2.toLowerCase().replace('-', ' '));
    expect(dev?.apiKey).toMatch(KEY);
    expect(await service.redeemPairCode(code2)).toBeNull();
    const code3 = (await service.pairCode()).code;
    now += 16 * 60_000;
    expect(await service.redeemPairCode(code3)).toBeNull();
    expect((await service.pairCode()).code).not.toBe(code3);
  });

  it('keeps state across a restart through the same store', async () => {
    const state = memoryStateStore();
    const a = await authApp({ state });
    const b = await authApp({ state });
    expect(b.service.serverId).toBe(a.service.serverId);
    expect(b.firstKey).toBe(a.firstKey);
  });
});
