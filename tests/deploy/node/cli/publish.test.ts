/** `quire publish` against the real server over a socket. */
import { describe, expect, it } from 'vitest';
import { parseExpiry } from '../../../../deploy/node/cli/publish.ts';
import { quire } from './run.ts';
import { openPortServerForFile } from './server-for-file.ts';

const server = openPortServerForFile();

describe('quire publish', () => {
  it('reads --expires', () => {
    expect(parseExpiry('2d', 0)).toBe(new Date(2 * 86_400_000).toISOString());
    expect(parseExpiry('30m', 0)).toBe(new Date(30 * 60_000).toISOString());
    expect(parseExpiry('2030-01-01T00:00:00Z')).toBe('2030-01-01T00:00:00.000Z');
    expect(() => parseExpiry('soon')).toThrow(/--expires/);
  });

  it('publishes a folder with a password from the environment, lists it, revokes it', async () => {
    const env = { QUIRE_API_KEY: server().firstKey, QUIRE_PUBLISH_PASSWORD: 'a long reader password' };
    const note = await fetch(`${server().url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': server().firstKey },
      body: JSON.stringify({ path: 'Site/home.md', content: '# Home\n\nhello readers\n' }),
    });
    expect(note.status).toBe(201);
    const made = await quire(
      ['publish', 'Site', '--password', '--expires', '7d', '--url', server().url, '--json'],
      env,
    );
    expect(made.code, made.stderr).toBe(0);
    const p = JSON.parse(made.stdout);
    expect(p.password).toBe(true);
    expect(made.stdout).not.toContain('a long reader password');
    const locked = await fetch(p.url);
    expect(locked.status).toBe(401);
    const open = await fetch(`${p.url}home.md`, {
      headers: { authorization: `Basic ${btoa('x:a long reader password')}` },
    });
    expect(await open.text()).toContain('hello readers');
    const list = await quire(['publish', 'list', '--url', server().url], env);
    expect(list.stdout).toMatch(new RegExp(`${p.id}\\s+Site/\\s+until .*password`));
    const gone = await quire(['publish', 'revoke', p.id, '--url', server().url], env);
    expect(gone.stdout).toContain('404');
    expect((await fetch(p.url)).status).toBe(404);
    expect(
      (
        await quire(['publish', 'Site', '--password', '--url', server().url], {
          QUIRE_API_KEY: server().firstKey,
        })
      ).code,
    ).toBe(2);
    expect(
      (await quire(['publish', 'list', '--url', server().url], { QUIRE_API_KEY: 'quire_sk_wrong' })).code,
    ).toBe(1);
  }, 60_000);
});
