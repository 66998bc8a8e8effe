import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../../../deploy/node/cli/main.ts';
import { tempDir } from '../../../helpers/app.ts';
import { closedPortUrl } from '../../../helpers/ports.ts';
import { quire, quireDaemon } from './run.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const temp = async () => {
  const t = await tempDir('quire-cli-');
  cleanups.push(t.cleanup);
  return t.dir;
};

/**
 * `main` in this process, as bin/quire.js runs it: the real binary is spawned where the process
 * matters (its exit code, its streams); the help and usage texts need no process of their own, and
 * a dozen cold starts of the TypeScript loader at once outlast a busy machine's time-out.
 */
async function inProcess(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    env,
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    tty: false,
  });
  return { code, stdout, stderr };
}

describe('quire: help and exit codes', () => {
  it('--help lists every command; each command has its own --help', async () => {
    const top = await quire(['--help']);
    expect(top.code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(top.stdout).toContain(`  ${name} `);
    expect(top.stdout).toMatch(/Exit codes: 0 ok, 1 .*, 2 a usage error/);
    const helps = await Promise.all(Object.keys(COMMANDS).map((n) => inProcess([n, '--help'])));
    for (const [i, name] of Object.keys(COMMANDS).entries()) {
      expect(helps[i]!.code, name).toBe(0);
      expect(helps[i]!.stdout).toContain(`Usage: quire ${name}`);
    }
  });

  it('usage errors exit 2 and say what was wrong', async () => {
    const none = await quire([]);
    const [unknown, badOption, keysNoAction, keysNoKey, badUrl] = await Promise.all([
      inProcess(['frobnicate']),
      inProcess(['doctor', '--bogus']),
      inProcess(['keys']),
      inProcess(['keys', 'list', '--url', 'http://127.0.0.1:9']),
      inProcess(['setup', '--url', 'ftp://x']),
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: quire <command>');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain("Unknown option '--bogus'");
    expect(keysNoAction.code).toBe(2);
    expect(keysNoKey.code).toBe(2);
    expect(keysNoKey.stderr).toContain('QUIRE_API_KEY');
    expect(badUrl.code).toBe(2);
  });
});

describe('quire doctor', () => {
  it('passes on a sound setup and names the variable of a broken config', async () => {
    const dir = await temp();
    const base = { DATA_DIR: join(dir, 'data'), PORT: '0', RELAY_PORT: '0' };
    const good = await quire(['doctor'], base);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('no problems');
    const [port, auth, jwt] = await Promise.all([
      quire(['doctor'], { ...base, PORT: 'abc' }),
      quire(['doctor'], { ...base, SERVICE_AUTH_MODE: 'none', HOST: '0.0.0.0' }),
      quire(['doctor', '--json'], { ...base, SERVICE_AUTH_MODE: 'jwt' }),
    ]);
    expect(port.code).toBe(1);
    expect(port.stdout).toMatch(/FAIL\s+config\s+PORT must be a whole number, got "abc"/);
    expect(port.stdout).toContain('fix:');
    expect(auth.code).toBe(1);
    expect(auth.stdout).toContain('ALLOW_INSECURE_NO_AUTH');
    expect(jwt.code).toBe(1);
    const report = JSON.parse(jwt.stdout);
    expect(report.ok).toBe(false);
    expect(report.checks.find((c: any) => c.name === 'config').detail).toContain('JWT_SECRET');
  });

  it('finds damaged or exposed state, an unreachable relay or Redis, and a port taken by something else', async () => {
    const dir = await temp();
    const data = join(dir, 'data');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, 'credentials.json'), '{ not json', { mode: 0o644 });
    const other = createServer((_req, res) => res.writeHead(404).end('nope'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => other.close(r)));
    const otherPort = String((other.address() as AddressInfo).port);
    const closed = await closedPortUrl();
    const r = await quire(['doctor'], {
      DATA_DIR: data,
      PORT: otherPort,
      RELAY_URL: closed,
      REDIS_URL: `redis://127.0.0.1:${new URL(closed).port}`,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL\s+credentials\.json\s+.*readable by others/);
    expect(r.stdout).toContain(`chmod 600 ${join(data, 'credentials.json')}`);
    expect(r.stdout).toMatch(/FAIL\s+credentials\.json\s+.*not valid JSON/);
    expect(r.stdout).toMatch(/FAIL\s+port\s+something else answers/);
    expect(r.stdout).toMatch(/FAIL\s+relay\s+cannot reach the relay/);
    expect(r.stdout).toMatch(/FAIL\s+redis\s+REDIS_URL does not answer/);
    expect(r.stdout).toContain('problems to fix');

    const redis = await quire(['doctor'], {
      DATA_DIR: join(dir, 'fresh'),
      PORT: '0',
      RELAY_PORT: '0',
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      RELAY_QUEUE_KEY: 'doctor-relay-queue-key-0123456789abcdef',
    });
    expect(redis.stdout).toMatch(/ok\s+redis\s+REDIS_URL answers PING/);
    expect(redis.code).toBe(0);
  });
});

describe('quire serve, setup and keys', () => {
  it('serves, prints the links without the key unless asked, and lists, mints and revokes keys', async () => {
    const dir = await temp();
    const env = { DATA_DIR: join(dir, 'data') };
    const server = quireDaemon(['serve', '--port', '0', '--no-relay'], env);
    cleanups.push(() => server.kill());
    const { url } = await server.waitForLog('listening');
    const payload = (await (await fetch(`${url}/api/v1/system/setup`)).json()).data;
    const firstKey: string = payload.apiKey;

    const setup = await quire(['setup', '--url', url]);
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain(`hosted client:  ${url}/link?serverUrl=`);
    expect(setup.stdout).toContain('hidden: --show-key');
    expect(setup.stdout).not.toContain(firstKey);
    const shown = await inProcess(['setup', '--show-key'], { QUIRE_URL: url });
    expect(shown.stdout).toContain(firstKey);
    const unreachable = await inProcess(['setup', '--url', await closedPortUrl()]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('Cannot reach a Quire server');

    const keyEnv = { QUIRE_URL: url, QUIRE_API_KEY: firstKey };
    const minted = await inProcess(['keys', 'mint', 'phone'], keyEnv);
    expect(minted.code).toBe(0);
    const newKey = minted.stdout.match(/quire_sk_\S+/)?.[0];
    expect(newKey).toBeDefined();
    const list = await inProcess(['keys', 'list', '--json'], keyEnv);
    const rows = JSON.parse(list.stdout) as { id: string; name: string }[];
    expect(rows.map((k) => k.name)).toEqual(expect.arrayContaining(['phone']));
    expect(list.stdout).not.toContain(firstKey);
    const phone = rows.find((k) => k.name === 'phone')!;
    expect((await inProcess(['keys', 'revoke', phone.id], keyEnv)).code).toBe(0);
    const again = await inProcess(['keys', 'revoke', phone.id], keyEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('404');
    const wrongKey = await inProcess(['keys', 'list'], { ...keyEnv, QUIRE_API_KEY: 'quire_sk_nope' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('INVALID_API_KEY');
    const refused = await inProcess(['keys', 'list', '--offline', '--url', url], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stop it');

    expect(await server.stop()).toBe(0);
    const offline = await inProcess(['keys', 'mint', 'laptop', '--offline', '--url', url], env);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toMatch(/quire_sk_/);
    const offlineList = await inProcess(['keys', 'list', '--offline', '--url', url], env);
    expect(offlineList.stdout).toContain('laptop');
  }, 60_000);

  it('a bad configuration stops serve with exit 1 and one line', async () => {
    const r = await quire(['serve', '--port', '99999']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('quire serve: PORT must be between 0 and 65535, got 99999.');
  });
});

describe('quire relay', () => {
  it('runs the relay alone and stops cleanly on SIGTERM', async () => {
    const relay = quireDaemon(['relay', '--port', '0', '--host', '127.0.0.1']);
    cleanups.push(() => relay.kill());
    const { url } = await relay.waitForLog('relay listening');
    const health = (await (await fetch(`${url}/api/v1/health`)).json()).data;
    expect(health).toMatchObject({ status: 'ok', service: 'quire-relay', queue: { backend: 'memory' } });
    expect(await relay.stop()).toBe(0);
    const bad = await quire(['relay', '--redis-url', 'http://nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('REDIS_URL must start with redis://');
  });
});

describe('quire index', () => {
  it('rebuilds the cache with progress (notes/s, ETA) and a summary', async () => {
    const dir = await temp();
    const vault = join(dir, 'vault');
    await mkdir(join(vault, 'sub'), { recursive: true });
    for (let i = 0; i < 60; i++)
      await writeFile(join(vault, i % 2 ? 'sub' : '', `n${i}.md`), `# Note ${i}\n[[n${i + 1}]] #t${i % 3}\n`);
    const data = join(dir, 'data');
    const r = await quire(['index', '--vault-dir', vault, '--data-dir', data]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\[#+\] 60\/60 notes {2}\d+ notes\/s {2}ETA 0 s/);
    expect(r.stdout).toMatch(/^Indexed 60 notes in .* \(\d+ notes\/s\); cache written to /);
    const cache = join(data, 'index-snapshot.bin');
    expect((await stat(cache)).mode & 0o777).toBe(0o600);
    expect((await readFile(cache)).subarray(0, 8).toString()).toBe('QUIRESNP');
    expect((await stat(cache)).size).toBeGreaterThan(1000);
    await chmod(cache, 0o600);
    const quiet = await quire(['index', '--quiet'], { VAULT_DIR: vault, DATA_DIR: data });
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toContain('Indexed 60 notes');
  });
});
