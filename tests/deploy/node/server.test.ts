import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../deploy/shared/config/server.ts';
import { tempDir } from '../../helpers/app.ts';
import { runTs } from '../../helpers/child.ts';

const kills: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const k of kills.splice(0)) await k();
});

describe('server config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv');
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: '/srv/data',
      vaultDir: '/srv/data/notes',
      shutdownGraceMs: 10_000,
    });
    expect(loadConfig({ SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs).toBe(0);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ HOST: 'a b' }, /HOST/],
    [{ MAX_BODY_BYTES: '-1' }, /MAX_BODY_BYTES/],
    [{ SHUTDOWN_GRACE_MS: 'soon' }, /SHUTDOWN_GRACE_MS/],
    [{ SHUTDOWN_GRACE_MS: '700000' }, /SHUTDOWN_GRACE_MS/],
  ])('refuses %j with a message naming the variable', (env, re) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(re);
  });
});

describe('npm start (the Node composition root)', () => {
  it('stops a bad start with one clear line', async () => {
    const p = runTs('deploy/node/main.ts', { PORT: 'nope' });
    kills.push(p.kill);
    expect(await p.exited).toBe(1);
    expect(p.out.stderr.trim().split('\n')).toEqual(['quire: PORT must be a whole number, got "nope".']);
  });

  it('refuses mode none on a public host, and a damaged credentials file, with one line each', async () => {
    const none = runTs('deploy/node/main.ts', { SERVICE_AUTH_MODE: 'none', HOST: '0.0.0.0', PORT: '0' });
    kills.push(none.kill);
    expect(await none.exited).toBe(1);
    expect(none.out.stderr.trim().split('\n')).toHaveLength(1);
    expect(none.out.stderr).toMatch(
      /SERVICE_AUTH_MODE=none refuses to start: HOST=0\.0\.0\.0 listens beyond loopback/,
    );

    const tmp = await tempDir();
    kills.push(tmp.cleanup);
    await writeFile(join(tmp.dir, 'credentials.json'), '{"v":1');
    const damaged = runTs('deploy/node/main.ts', { DATA_DIR: tmp.dir, PORT: '0' });
    kills.push(damaged.kill);
    expect(await damaged.exited).toBe(1);
    expect(damaged.out.stderr.trim()).toMatch(/^quire: credentials.json in DATA_DIR is not valid JSON/);
    expect(await readFile(join(tmp.dir, 'credentials.json'), 'utf8')).toBe('{"v":1');
  });

  it('serves a vault, writes the index cache, and shuts down cleanly on SIGTERM', async () => {
    const tmp = await tempDir();
    kills.push(tmp.cleanup);
    const vault = join(tmp.dir, 'vault');
    const env = { PORT: '0', DATA_DIR: join(tmp.dir, 'data'), VAULT_DIR: vault, LOG_LEVEL: 'info' };
    const { mkdir } = await import('node:fs/promises');
    await mkdir(vault, { recursive: true });
    await writeFile(join(vault, 'hello.md'), '# Hello\n[[world]]');

    const p = runTs('deploy/node/main.ts', env);
    kills.push(p.kill);
    const { url } = await p.waitForLog((l) => l.msg === 'listening');
    await p.waitForLog((l) => l.msg === 'index ready');
    const health = await (await fetch(`${url}/api/v1/health`)).json();
    expect(health.data).toMatchObject({ status: 'ok', notes: 1 });
    const setup = (await (await fetch(`${url}/api/v1/system/setup`)).json()).data;
    expect(setup.server.port).toBe(Number(new URL(url).port));
    const apiKey: string = setup.apiKey;
    expect((await fetch(`${url}/api/v1/notes`)).status).toBe(401);
    const created = await fetch(`${url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': apiKey },
      body: JSON.stringify({ path: 'world.md', content: 'round' }),
    });
    expect(created.status).toBe(201);
    const requestLine = await p.waitForLog((l) => l.msg === 'request' && l.method === 'POST');
    expect(requestLine.requestId).toMatch(/.+/);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.out.stdout).toContain('"msg":"stopped"');
    expect(await readFile(join(vault, 'world.md'), 'utf8')).toBe('round');
    expect(existsSync(join(tmp.dir, 'data', 'index-snapshot.bin'))).toBe(true);

    const again = runTs('deploy/node/main.ts', env);
    kills.push(again.kill);
    const { url: url2 } = await again.waitForLog((l) => l.msg === 'listening');
    await again.waitForLog((l) => l.msg === 'index ready');
    const list = await (await fetch(`${url2}/api/v1/notes`, { headers: { 'x-service-key': apiKey } })).json();
    expect(list.data.map((n: any) => n.path)).toEqual(['hello.md', 'world.md']);
    expect(list.data[0].links[0].path).toBe('world.md');
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });
});
