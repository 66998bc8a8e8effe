/**
 * Security review, fourth round, finding 4, over real HTTP against the Node server: a folder
 * scope is decided on the file actually opened. A symlink inside the vault is not followed (the
 * note or file is served once, under its real path), so a read-only key limited to `Work/` cannot
 * read, list or search `Secret/plan.md` through `Work/alias/plan.md` or `Work/plan-link.md`, nor
 * read `Secret/pic.png` through the files routes.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequester, tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let srv: LiveServer;
let scoped: ReturnType<typeof httpRequester>;
let full: ReturnType<typeof httpRequester>;
const enc = encodeURIComponent;

beforeAll(async () => {
  tmp = await tempDir('quire-round4-paths-');
  const vault = join(tmp.dir, 'vault');
  await mkdir(join(vault, 'Work'), { recursive: true });
  await mkdir(join(vault, 'Secret'));
  await writeFile(join(vault, 'Work', 'notes.md'), '# Work notes\n\nquarterly zebra plan\n');
  await writeFile(join(vault, 'Secret', 'plan.md'), '# Plan\n\nthe zebraquux launch\n');
  await writeFile(join(vault, 'Secret', 'pic.png'), 'not really a png');
  // Inside the vault, leading out of the key's folder: a folder, a note and a file.
  await symlink('../Secret', join(vault, 'Work', 'alias'));
  await symlink('../Secret/plan.md', join(vault, 'Work', 'plan-link.md'));
  await symlink('../Secret/pic.png', join(vault, 'Work', 'pic-link.png'));
  srv = await liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault });
  full = httpRequester(srv.url, { 'x-service-key': srv.firstKey });
  const minted = await full('POST', '/api/v1/auth/keys', {
    body: { name: 'work', scope: { capabilities: ['notes:read', 'files:read'], folders: ['Work/'] } },
  });
  expect(minted.status).toBe(201);
  scoped = httpRequester(srv.url, { 'x-service-key': minted.json.data.apiKey });
});
afterAll(async () => {
  await srv?.stop();
  await rm(tmp.dir, { recursive: true, force: true });
});

describe('finding 4: a symlink inside the vault is not followed', () => {
  it('REST read, list and search of the folder-scoped key never reach Secret/', async () => {
    for (const path of ['Work/alias/plan.md', 'Work/plan-link.md']) {
      const got = await scoped('GET', `/api/v1/notes/${enc(path)}`);
      expect([path, got.status]).toEqual([path, 400]);
      expect(got.json.error.code).toBe('INVALID_PATH');
      expect(got.text).not.toContain('zebraquux');
    }
    const list = await scoped('GET', '/api/v1/notes');
    expect(list.json.data.map((n: { path: string }) => n.path)).toEqual(['Work/notes.md']);
    const search = await scoped('GET', '/api/v1/search?q=zebraquux');
    expect(search.status).toBe(200);
    expect(search.text).not.toContain('zebraquux');
    expect(JSON.stringify(search.json.data)).not.toMatch(/plan/);
    const tree = await scoped('GET', '/api/v1/folders/tree');
    expect(tree.text).not.toMatch(/plan|pic/);
  });

  it('the note is indexed once, under its real path (a full key sees Secret/plan.md only)', async () => {
    const list = await full('GET', '/api/v1/notes');
    expect(list.json.data.map((n: { path: string }) => n.path).sort()).toEqual([
      'Secret/plan.md',
      'Work/notes.md',
    ]);
    const search = await full('GET', '/api/v1/search?q=zebraquux');
    expect(JSON.stringify(search.json.data)).toContain('Secret/plan.md');
    expect(JSON.stringify(search.json.data)).not.toContain('plan-link');
  });

  it('the files routes neither read nor write through a symlink', async () => {
    for (const path of ['Work/alias/pic.png', 'Work/pic-link.png']) {
      const got = await scoped('GET', `/api/v1/files/${enc(path)}`);
      expect([path, got.status]).toEqual([path, 400]);
      expect(got.text).not.toContain('not really');
    }
    const put = await full('PUT', '/api/v1/files/Work/pic-link.png', {
      body: 'x',
      headers: { 'content-type': 'image/png' },
    });
    expect(put.status).toBe(400);
    // Nor through a symlinked note or folder on the notes routes.
    expect(
      (await full('PUT', `/api/v1/notes/${enc('Work/plan-link.md')}`, { body: { content: 'x' } })).status,
    ).toBe(400);
    expect(
      (await full('POST', '/api/v1/notes', { body: { path: 'Work/alias/new.md', content: 'x' } })).status,
    ).toBe(400);
    const plan = await full('GET', `/api/v1/notes/${enc('Secret/plan.md')}`);
    expect(plan.json.data.content).toContain('zebraquux');
  });
});
