/**
 * Security review, second round, over real HTTP against the Node server: finding 7 (a YAML alias
 * bomb) and the small ones of finding 9 (dangling symlinked folder, DATA_DIR mode, link rewriting
 * through a symlinked note, unknown fields in JSON bodies and plugin config).
 */
import { lstat, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPortServers } from '../helpers/open-port-servers.ts';
import { until } from '../helpers/wait.ts';

const start = openPortServers();
const enc = encodeURIComponent;

describe('finding 7: YAML alias expansion', () => {
  it('a 58 KB anchor with 99 aliases is not served 200-fold; the note carries a warning', async () => {
    const s = await start();
    const anchor = 'x'.repeat(58_000);
    const yaml = `a: &a "${anchor}"\n${Array.from({ length: 99 }, (_, i) => `k${i}: *a`).join('\n')}\n`;
    const file = `---\n${yaml}---\n# Bomb\n`;
    expect((await s.call('POST', '/api/v1/notes', { path: 'bomb.md', content: file })).status).toBe(201);
    const got = await s.call('GET', '/api/v1/notes/bomb.md');
    expect(got.status).toBe(200);
    expect(got.text.length).toBeLessThan(file.length * 5);
    expect(got.json.data.warnings.join(' ')).toMatch(/alias/i);
    // A modest use of aliases still works.
    const ok = `---\nbase: &b {x: 1}\none: *b\ntwo: *b\n---\nbody\n`;
    await s.call('POST', '/api/v1/notes', { path: 'fine.md', content: ok });
    expect((await s.call('GET', '/api/v1/notes/fine.md')).json.data.frontmatter).toEqual({
      base: { x: 1 },
      one: { x: 1 },
      two: { x: 1 },
    });
  });
});

describe('finding 9: the small ones', () => {
  it('a dangling symlink as a parent folder answers 400 INVALID_PATH, never 500', async () => {
    const s = await start();
    await symlink(join(s.vaultDir, 'gone'), join(s.vaultDir, 'dangling'));
    for (const [method, path, body] of [
      ['POST', '/api/v1/notes', { path: 'dangling/n.md', content: 'x' }],
      ['PUT', `/api/v1/notes/${enc('dangling/n.md')}`, { content: 'x' }],
      ['GET', `/api/v1/notes/${enc('dangling/n.md')}`],
      ['DELETE', `/api/v1/notes/${enc('dangling/n.md')}`],
      ['GET', '/api/v1/folders/tree/dangling'],
    ] as const) {
      const res = await s.call(method, path, body);
      expect([method, path, res.status]).not.toEqual([method, path, 500]);
      expect(res.status).toBeLessThan(500);
    }
    const res = await s.call('POST', '/api/v1/notes', { path: 'dangling/n.md', content: 'x' });
    expect([res.status, res.json.error.code]).toEqual([400, 'INVALID_PATH']);
  });

  it('a default install creates DATA_DIR 0700', async () => {
    const s = await start();
    const dataDir = dirname(s.vaultDir);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  });

  it('link rewriting leaves a symlinked note inside the vault a link (it is not followed)', async () => {
    const s = await start();
    await writeFile(join(s.vaultDir, 'real.md'), 'See [[old]].\n');
    await writeFile(join(s.vaultDir, 'old.md'), '# Old\n');
    await symlink('real.md', join(s.vaultDir, 'alias.md'));
    // The link is not a note (fourth round, finding 4): its target is listed once, as real.md.
    await until(
      'the condition',
      async () => (await s.call('GET', '/api/v1/notes')).json.data.length === 2,
      10_000,
    );
    const moved = await s.call('POST', `/api/v1/notes/${enc('old.md')}/move`, {
      path: 'new.md',
      updateLinks: true,
    });
    expect(moved.status).toBe(200);
    expect((await lstat(join(s.vaultDir, 'alias.md'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(s.vaultDir, 'alias.md'))).toBe('real.md');
    expect(await readFile(join(s.vaultDir, 'real.md'), 'utf8')).toContain('[[new]]');
    // A PUT through the symlinked path is refused; the link and its target stay.
    const put = await s.call('PUT', '/api/v1/notes/alias.md', { content: 'Via alias.\n' });
    expect([put.status, put.json.error.code]).toEqual([400, 'INVALID_PATH']);
    expect((await lstat(join(s.vaultDir, 'alias.md'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(s.vaultDir, 'real.md'), 'utf8')).toContain('[[new]]');
  });

  it('every JSON body refuses unknown fields with 400 naming them; plugin config too', async () => {
    const s = await start();
    const inst = await s.call('POST', '/api/v1/plugins/install', {
      id: 'daily-notes',
      config: { timeZone: 'UTC' },
      enabled: true,
    });
    expect(inst.status).toBe(201);
    const cases: [string, string, Record<string, unknown>][] = [
      ['POST', '/api/v1/notes', { path: 'a.md', content: 'x', contnet: 'typo' }],
      ['PUT', '/api/v1/notes/a.md', { content: 'x', contnet: 'typo' }],
      ['POST', `/api/v1/notes/${enc('a.md')}/move`, { path: 'b.md', contnet: 'typo' }],
      ['POST', '/api/v1/agent/chat', { message: 'hi', contnet: 'typo' }],
      ['POST', '/api/v1/auth/keys', { name: 'phone', contnet: 'typo' }],
      ['POST', '/api/v1/channels', { provider: 'web', name: 'w', contnet: 'typo' }],
      ['POST', '/api/v1/plugins/install', { id: 'web-search', contnet: 'typo' }],
      ['POST', '/api/v1/plugins/daily-notes/toggle', { enabled: true, contnet: 'typo' }],
      ['PUT', '/api/v1/plugins/daily-notes/config', { timeZone: 'UTC', contnet: 'typo' }],
    ];
    await s.call('POST', '/api/v1/notes', { path: 'a.md', content: 'x' });
    for (const [method, path, body] of cases) {
      const res = await s.call(method, path, body);
      expect([method, path, res.status, res.json?.error?.code]).toEqual([
        method,
        path,
        400,
        'VALIDATION_ERROR',
      ]);
      expect(res.json.error.message).toContain('contnet');
    }
    // The config did not change, and the right spelling still works.
    const cfg = await s.call('PUT', '/api/v1/plugins/daily-notes/config', { timeZone: 'Europe/Paris' });
    expect(cfg.status).toBe(200);
    expect(cfg.json.data.config.timeZone).toBe('Europe/Paris');
  });
});
