import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { runTs } from '../helpers/child.ts';
import { SECRET, startServer, verifySignature } from '../helpers/plugins.ts';
import { until } from '../helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('npm start with plugins', () => {
  it('protects the plugin routes, delivers webhooks, and keeps plugin state across a restart', async () => {
    const receiver = await startServer(() => ({ status: 204 }));
    cleanups.push(receiver.close);
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const dataDir = join(tmp.dir, 'data');
    const vault = join(tmp.dir, 'vault');
    await mkdir(vault, { recursive: true });
    const env = { DATA_DIR: dataDir, VAULT_DIR: vault, PAIRING_MODE: 'open-port', LOG_LEVEL: 'info' };

    const start = async () => {
      const p = runTs('deploy/node/main.ts', env);
      cleanups.push(p.kill);
      const { url } = await p.waitForLog((l) => l.msg === 'listening');
      await p.waitForLog((l) => l.msg === 'index ready');
      return { p, url: url as string };
    };
    const first = await start();
    const setup = (await (await fetch(`${first.url}/api/v1/system/setup`)).json()).data;
    const key: string = setup.apiKey;
    const api = async (url: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}/api/v1${path}`, {
        method,
        headers: {
          'x-service-key': key,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    };

    expect((await fetch(`${first.url}/api/v1/plugins`)).status).toBe(401);
    expect((await fetch(`${first.url}/api/v1/plugins/catalog`)).status).toBe(401);
    const installed = await api(first.url, 'POST', '/plugins/install', {
      id: 'outbound-webhooks',
      config: {
        urls: [`${receiver.url}/in`],
        secret: SECRET,
        allowPrivateNetwork: true,
        retryDelaysMs: [50],
      },
      enabled: true,
    });
    expect(installed.status).toBe(201);
    await api(first.url, 'POST', '/plugins/install', {
      id: 'daily-notes',
      config: { timeZone: 'UTC' },
      enabled: true,
    });
    expect((await stat(join(dataDir, 'plugins.json'))).mode & 0o777).toBe(0o600);

    expect((await api(first.url, 'POST', '/notes', { path: 'one.md', content: '# One' })).status).toBe(201);
    await until('the condition', () => receiver.got.length === 1, 10_000);
    expect(verifySignature(SECRET, receiver.got[0]!.headers, receiver.got[0]!.body)).toBe(true);
    const today = await api(first.url, 'POST', '/plugins/daily-notes/today');
    expect(today.json.data.created).toBe(true);
    await until('the condition', () => receiver.got.length === 2, 10_000);
    await until(
      'the condition',
      async () =>
        (await readFile(join(dataDir, 'plugin.outbound-webhooks.json'), 'utf8').catch(() => '')).includes(
          '"delivered":2',
        ),
      10_000,
    );
    const listed = (await api(first.url, 'GET', '/plugins')).json.data;
    first.p.child.kill('SIGTERM');
    expect(await first.p.exited).toBe(0);

    const second = await start();
    await second.p.waitForLog((l) => l.msg === 'plugins' && l.enabled?.length === 2);
    expect((await api(second.url, 'GET', '/plugins')).json.data).toEqual(listed);
    const rt = (await api(second.url, 'GET', '/plugins/runtime')).json.data.plugins;
    expect(rt.map((p: { id: string; state: string }) => `${p.id}:${p.state}`)).toEqual([
      'outbound-webhooks:active',
      'daily-notes:active',
    ]);
    expect(rt[0].stats).toMatchObject({ delivered: 2 });
    const tools = (await api(second.url, 'GET', '/agent/status')).json.data.tools.map(
      (t: { name: string }) => t.name,
    );
    expect(tools).toContain('open_todays_note');
    expect((await api(second.url, 'POST', '/notes', { path: 'two.md', content: '# Two' })).status).toBe(201);
    await until('the condition', () => receiver.got.length === 3, 10_000);
    expect(JSON.parse(receiver.got[2]!.body).data.path).toBe('two.md');
    for (const text of [second.p.out.stdout, second.p.out.stderr, first.p.out.stdout]) {
      expect(text).not.toContain(SECRET.slice(6, 30));
    }
  });
});
