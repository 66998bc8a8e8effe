/** `quire keys mint` with a scope, against the real server over a socket. */
import { describe, expect, it } from 'vitest';
import { scopeFromOptions } from '../../../../deploy/node/cli/keys.ts';
import { quire } from './run.ts';
import { openPortServerForFile } from './server-for-file.ts';

const server = openPortServerForFile();

describe('quire keys mint with a scope', () => {
  it('reads the scope options', () => {
    expect(scopeFromOptions({})).toBeUndefined();
    expect(scopeFromOptions({ 'read-only': true })).toEqual({ capabilities: ['notes:read', 'files:read'] });
    expect(scopeFromOptions({ cap: ['notes:read,agent'], folder: ['Work'] })).toEqual({
      capabilities: ['notes:read', 'agent'],
      folders: ['Work/'],
    });
    // Folders alone keep every capability inside them.
    expect(scopeFromOptions({ folder: ['Work/'] })?.capabilities).toHaveLength(6);
    expect(() => scopeFromOptions({ cap: ['notes:fly'] })).toThrow(/Unknown capability/);
    expect(() => scopeFromOptions({ folder: ['../up'] })).toThrow(/Bad scope/);
  });

  it('mints a read-only folder key that reads inside and is refused writes', async () => {
    const env = { QUIRE_API_KEY: server().firstKey };
    const minted = await quire(
      [
        'keys',
        'mint',
        '--read-only',
        '--folder',
        'Work/',
        '--exclude',
        'Work/private/',
        '--name',
        'reader',
        '--url',
        server().url,
        '--json',
      ],
      env,
    );
    expect(minted.code, minted.stderr).toBe(0);
    const key = JSON.parse(minted.stdout);
    expect(key.scope).toEqual({
      capabilities: ['notes:read', 'files:read'],
      folders: ['Work/'],
      exclude: ['Work/private/'],
    });
    const list = await quire(['keys', 'list', '--url', server().url], env);
    expect(list.stdout).toMatch(/reader .*notes:read,files:read; folders Work\/; except Work\/private\//);
    expect(list.stdout).toMatch(/first key .*full access/);
    const put = await fetch(`${server().url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'x-service-key': key.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'Work/a.md', content: 'x' }),
    });
    expect(put.status).toBe(403);
    expect(((await put.json()) as any).error.message).toContain('missing capability notes:write');
    const read = await fetch(`${server().url}/api/v1/notes`, { headers: { 'x-service-key': key.apiKey } });
    expect(read.status).toBe(200);

    const bad = await quire(['keys', 'mint', 'x', '--cap', 'notes:fly', '--url', server().url], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown capability');
    const misplaced = await quire(['keys', 'list', '--read-only', '--url', server().url], env);
    expect(misplaced.code).toBe(2);
  }, 60_000);
});
