/** `quire people` against the real server over a socket. */
import { describe, expect, it } from 'vitest';
import { parseShare } from '../../../../deploy/node/cli/people.ts';
import { quire } from './run.ts';
import { openPortServerForFile } from './server-for-file.ts';

const server = openPortServerForFile();

describe('quire people', () => {
  it('reads --share', () => {
    expect(parseShare('Team:editor')).toEqual({ folder: 'Team', role: 'editor' });
    expect(parseShare('Team')).toEqual({ folder: 'Team', role: 'viewer' });
    expect(parseShare(':manager')).toEqual({ folder: '', role: 'manager' });
    expect(() => parseShare('Team:boss')).toThrow(/Unknown role/);
  });

  it('adds a person with a share and prints a working invite link; disable ends it', async () => {
    const env = { QUIRE_API_KEY: server().firstKey };
    const added = await quire(
      ['people', 'add', 'Ann', '--share', 'Team:editor', '--url', server().url, '--json'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const out = JSON.parse(added.stdout);
    expect(out.invite.link).toMatch(/\/invite#quire_inv_/);
    const token = out.invite.link.split('#')[1];
    const enrol = await fetch(`${server().url}/api/v1/invites/password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'ann password long', as: 'bearer' }),
    });
    const session = ((await enrol.json()) as any).data.token as string;
    const list = await quire(['people', 'list', '--url', server().url], env);
    expect(list.stdout).toMatch(/Ann\s+member\s+active\s+Team\/:editor/);
    const off = await quire(['people', 'disable', out.id, '--url', server().url], env);
    expect(off.stdout).toContain('signed out everywhere');
    const after = await fetch(`${server().url}/api/v1/notes`, {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(after.status).toBe(401);
    const bad = await quire(['people', 'add'], env);
    expect(bad.code).toBe(2);
    const refused = await quire(['people', 'list', '--url', server().url], {
      QUIRE_API_KEY: 'quire_sk_wrong',
    });
    expect(refused.code).toBe(1);
  }, 60_000);
});
