import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../core/plugins/config.ts';
import { tempDir } from '../../helpers/app.ts';
import { pluginApp, SECRET, startServer, verifySignature } from '../../helpers/plugins.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(answer: (n: number) => number) {
  const tmp = await tempDir();
  cleanups.push(tmp.cleanup);
  const receiver = await startServer((_req, n) => ({ status: answer(n) }));
  cleanups.push(receiver.close);
  const made = await pluginApp(tmp.dir);
  cleanups.push(() => made.plugins.stop());
  const createNote = (path: string) =>
    made.send('POST', '/api/v1/notes', { body: { path, content: `# ${path}\n` } });
  const paths = () => receiver.got.map((r) => JSON.parse(r.body).data.path as string);
  return { ...made, dir: tmp.dir, receiver, createNote, paths };
}

const hookConfig = (url: string) => ({
  urls: [`${url}/hook?token=abc`],
  secret: SECRET,
  allowPrivateNetwork: true,
  retryDelaysMs: [10, 10, 10],
});

describe('outbound-webhooks', () => {
  it('install → configure (bad config named field by field) → enable → a signed event arrives, a failing receiver is retried', async () => {
    const t = await setup((n) => (n === 1 ? 500 : 200));
    const installed = await t.call('POST', '/install', { id: 'outbound-webhooks' });
    expect(installed.status).toBe(201);
    expect(installed.json.data).toMatchObject({ id: 'outbound-webhooks', enabled: false, source: 'builtin' });
    expect(installed.json.data.generatedSecrets.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(installed.json.data.config.secret).toBe(REDACTED);

    const stateFile = join(t.dir, 'plugins.json');
    const before = await readFile(stateFile, 'utf8');
    const bad = await t.call('PUT', '/outbound-webhooks/config', {
      urls: ['not a url', 'ftp://example.com/x'],
      retryDelaysMs: [-1],
      timeoutMs: 'slow',
      events: ['created', 'exploded'],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('VALIDATION_ERROR');
    const fields = bad.json.error.details.issues.map((i: { field: string }) => i.field);
    expect(fields).toEqual(
      expect.arrayContaining(['urls.0', 'urls.1', 'retryDelaysMs.0', 'timeoutMs', 'events.1']),
    );
    for (const f of ['urls.0', 'urls.1', 'retryDelaysMs.0', 'timeoutMs', 'events.1'])
      expect(bad.json.error.message).toContain(f);
    expect(await readFile(stateFile, 'utf8')).toBe(before);

    const configured = await t.call('PUT', '/outbound-webhooks/config', hookConfig(t.receiver.url));
    expect(configured.status).toBe(200);
    expect(configured.json.data.config).toMatchObject({ secret: REDACTED, allowPrivateNetwork: true });
    expect(configured.text).not.toContain(SECRET.slice(6, 30));

    const on = await t.call('POST', '/outbound-webhooks/toggle', { enabled: true });
    expect(on.status).toBe(200);
    expect(on.json.data.enabled).toBe(true);

    expect((await t.createNote('ideas/first.md')).status).toBe(201);
    await until('the condition', () => t.receiver.got.length >= 2);
    const [first, retry] = t.receiver.got;
    for (const r of [first!, retry!]) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/hook?token=abc');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe('Quire-Webhooks/1.2.3');
      expect(verifySignature(SECRET, r.headers, r.body)).toBe(true);
      expect(verifySignature(SECRET, r.headers, `${r.body} `)).toBe(false);
      expect(JSON.parse(r.body)).toMatchObject({
        type: 'note.created',
        data: { path: 'ideas/first.md', external: false },
      });
    }
    expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(first!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
    expect(Number(first!.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);

    const rt = await until('the condition', async () => {
      const r = await t.call('GET', '/runtime');
      const p = r.json.data.plugins[0];
      return p.stats.delivered === 1 ? p : null;
    });
    expect(rt).toMatchObject({
      id: 'outbound-webhooks',
      state: 'active',
      loaded: true,
      contributions: { hooks: ['created', 'updated', 'moved', 'deleted'], tools: [], routes: [] },
      stats: { delivered: 1, retries: 1, failed: 0, queued: 0 },
    });
    expect(rt.stats.recent.map((d: { outcome: string }) => d.outcome)).toEqual(['delivered', 'retrying']);
    expect(rt.stats.recent[0]).toMatchObject({
      endpoint: t.receiver.url,
      status: 200,
      path: 'ideas/first.md',
    });
    expect(JSON.stringify(rt)).not.toContain('token=abc');
  });

  it('disable stops deliveries at once; enable resumes; remove deletes its state', async () => {
    const t = await setup(() => 200);
    await t.call('POST', '/install', {
      id: 'outbound-webhooks',
      config: hookConfig(t.receiver.url),
      enabled: true,
    });
    await t.createNote('a.md');
    await until('the condition', () => t.paths().includes('a.md'));

    const off = await t.call('POST', '/outbound-webhooks/toggle', { enabled: false });
    expect(off.json.data.enabled).toBe(false);
    const rtOff = (await t.call('GET', '/runtime')).json.data.plugins[0];
    expect(rtOff).toMatchObject({ state: 'disabled', loaded: false, contributions: { hooks: [] } });
    await t.createNote('b.md');
    await t.send('PUT', '/api/v1/notes/a.md', { body: { content: 'changed' } });

    await t.call('POST', '/outbound-webhooks/toggle', {});
    expect((await t.call('GET', '/outbound-webhooks')).json.data.enabled).toBe(true);
    await t.createNote('c.md');
    await until('the condition', () => t.paths().includes('c.md'));
    expect(t.paths()).toEqual(['a.md', 'c.md']);

    const dataFile = join(t.dir, 'plugin.outbound-webhooks.json');
    await until(
      'the condition',
      async () => existsSync(dataFile) && (await readFile(dataFile, 'utf8')).includes('c.md'),
    );
    const removed = await t.call('DELETE', '/outbound-webhooks');
    expect(removed.json).toEqual({ success: true, data: { removed: 'outbound-webhooks' } });
    expect(existsSync(dataFile)).toBe(false);
    expect(JSON.parse(await readFile(join(t.dir, 'plugins.json'), 'utf8'))).toEqual({ v: 1, plugins: {} });
    expect((await t.call('GET', '')).json.data).toEqual([]);
    expect((await t.call('GET', '/runtime')).json.data.plugins).toEqual([]);
    expect((await t.call('GET', '/outbound-webhooks')).json.error.code).toBe('PLUGIN_NOT_FOUND');
    await t.createNote('d.md');

    const again = await t.call('POST', '/install', { id: 'outbound-webhooks' });
    expect(again.json.data.config).toMatchObject({ urls: [], allowPrivateNetwork: false });
    const fresh = (await t.call('POST', '/outbound-webhooks/toggle', { enabled: true })).json.data;
    expect(fresh.enabled).toBe(true);
    expect((await t.call('GET', '/runtime')).json.data.plugins[0].stats).toMatchObject({
      delivered: 0,
      recent: [],
    });
    expect(t.paths()).toEqual(['a.md', 'c.md']);
  });

  it('refuses loopback and private destinations unless allowPrivateNetwork is set', async () => {
    const t = await setup(() => 200);
    await t.call('POST', '/install', { id: 'outbound-webhooks' });
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://[::1]:9/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/',
    ]) {
      const r = await t.call('PUT', '/outbound-webhooks/config', { urls: [url], secret: SECRET });
      expect(r.status).toBe(400);
      expect(r.json.error.details.issues[0]).toMatchObject({ field: 'urls' });
      expect(r.json.error.message).toContain('allowPrivateNetwork');
    }
    // A name that resolves to loopback passes the config check and is refused at delivery.
    const url = `http://localhost:${t.receiver.port}/hook`;
    const ok = await t.call('PUT', '/outbound-webhooks/config', { urls: [url], secret: SECRET });
    expect(ok.status).toBe(200);
    await t.call('POST', '/outbound-webhooks/toggle', { enabled: true });
    await t.createNote('secret-plans.md');
    const rt = await until('the condition', async () => {
      const p = (await t.call('GET', '/runtime')).json.data.plugins[0];
      return p.stats.refused === 1 ? p : null;
    });
    expect(rt.stats.recent[0]).toMatchObject({ outcome: 'refused', path: 'secret-plans.md' });
    expect(rt.stats.recent[0].error).toMatch(/localhost is a loopback.*allowPrivateNetwork/);
    expect(rt.lastError).toMatchObject({ where: 'delivery' });
    expect(t.receiver.got).toEqual([]);
    expect(t.plugins.egress()).toEqual([
      {
        id: 'outbound-webhooks',
        name: 'Outbound webhooks',
        enabled: true,
        egress: true,
        destinations: [`http://localhost:${t.receiver.port}`],
        allowPrivateNetwork: false,
      },
    ]);
  });

  it('keeps a secret that is omitted or sent back redacted, and never answers it', async () => {
    const t = await setup(() => 200);
    const inst = await t.call('POST', '/install', {
      id: 'outbound-webhooks',
      config: hookConfig(t.receiver.url),
    });
    expect(inst.json.data.generatedSecrets).toBeUndefined();
    const cfg = inst.json.data.config;
    expect(cfg.secret).toBe(REDACTED);
    const { secret: _s, ...withoutSecret } = cfg;
    expect(
      (await t.call('PUT', '/outbound-webhooks/config', { ...withoutSecret, events: ['created'] })).status,
    ).toBe(200);
    expect(
      (await t.call('PUT', '/outbound-webhooks/config', { ...cfg, events: ['created', 'deleted'] })).status,
    ).toBe(200);
    await t.call('POST', '/outbound-webhooks/toggle', { enabled: true });
    await t.createNote('x.md');
    await t.send('PUT', '/api/v1/notes/x.md', { body: { content: 'not sent: updated is off' } });
    await t.send('DELETE', '/api/v1/notes/x.md');
    await until('the condition', () => t.receiver.got.length === 2);
    expect(t.receiver.got.map((r) => JSON.parse(r.body).type)).toEqual(['note.created', 'note.deleted']);
    for (const r of t.receiver.got) expect(verifySignature(SECRET, r.headers, r.body)).toBe(true);
    const cleared = await t.call('PUT', '/outbound-webhooks/config', { ...cfg, secret: null });
    expect(cleared.status).toBe(400);
    expect(cleared.json.error.details.issues[0].field).toBe('secret');
    for (const path of ['', '/catalog', '/runtime', '/outbound-webhooks']) {
      expect((await t.call('GET', path)).text).not.toContain(SECRET.slice(6, 30));
    }
  });
});
