import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsApp } from '../helpers/app.ts';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

async function setup() {
  const made = await fsApp();
  cleanups.push(made.cleanup);
  const outside = join(made.root, 'outside');
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'secret.md'), 'TOP SECRET');
  return { ...made, outside };
}

/** Every file under `dir`, recursively, with its content. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[join(e.parentPath, e.name)] = await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

describe('the vault cannot be escaped', () => {
  const evil = [
    '../outside/secret.md',
    '..%2Foutside%2Fsecret.md',
    '%2e%2e%2Foutside%2Fsecret.md',
    '%2E%2E/outside/secret.md',
    '%2Fetc%2Fpasswd.md',
    '..%5Coutside%5Csecret.md',
    'a%5C..%5C..%5Csecret.md',
    'x%00.md',
    'ok%2F.%2Fa.md',
    'a%2F%2Fb.md',
    '.hidden%2Fa.md',
  ];

  it.each(evil)('GET, PUT, DELETE and move on %s answer 400/404 and touch nothing outside', async (p) => {
    const { call, outside } = await setup();
    const before = await snapshot(outside);
    for (const [method, path, body] of [
      ['GET', `/api/v1/notes/${p}`, undefined],
      ['PUT', `/api/v1/notes/${p}`, { content: 'pwned' }],
      ['DELETE', `/api/v1/notes/${p}`, undefined],
      ['POST', `/api/v1/notes/${p}/move`, { path: 'moved.md' }],
    ] as const) {
      const res = await call(method, path, body);
      expect([400, 404, 405]).toContain(res.status);
      expect(res.json.success).toBe(false);
    }
    expect(await snapshot(outside)).toEqual(before);
  });

  it.each([
    '../outside/pwned.md',
    '/tmp/pwned.md',
    'a\\..\\..\\pwned.md',
    'a/\u0000.md',
    'a/../../pwned.md',
    './x.md',
    '.git/hooks.md',
    `${'a'.repeat(300)}.md`,
  ])('POST /notes with path %j is 400 INVALID_PATH', async (p) => {
    const { call, outside, root } = await setup();
    const before = await snapshot(root);
    const res = await call('POST', '/api/v1/notes', { path: p, content: 'pwned' });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('INVALID_PATH');
    expect(await snapshot(root)).toEqual(before);
    expect(await snapshot(outside)).toEqual({ [join(outside, 'secret.md')]: 'TOP SECRET' });
  });

  it('does not follow symlinks that leave the vault', async () => {
    const { call, vault, outside, notes } = await setup();
    await symlink(join(outside, 'secret.md'), join(vault, 'link.md'));
    await symlink(outside, join(vault, 'linkdir'));
    await notes.load();
    const list = await call('GET', '/api/v1/notes');
    expect(list.json.data).toEqual([]);
    expect((await call('GET', '/api/v1/notes/link.md')).status).toBe(400);
    expect((await call('GET', `/api/v1/notes/${encodeURIComponent('linkdir/secret.md')}`)).status).toBe(400);
    const put = await call('PUT', '/api/v1/notes/link.md', { content: 'pwned' });
    expect(put.status).toBe(400);
    const post = await call('POST', '/api/v1/notes', { path: 'linkdir/new.md', content: 'pwned' });
    expect(post.status).toBe(400);
    expect(await snapshot(outside)).toEqual({ [join(outside, 'secret.md')]: 'TOP SECRET' });
  });

  it('serves nested paths with encoded slashes and writes them inside the vault', async () => {
    const { call, vault } = await setup();
    const res = await call('POST', '/api/v1/notes', { path: 'a b/c d/ünï.md', content: 'hi' });
    expect(res.status).toBe(201);
    expect(await readFile(join(vault, 'a b/c d/ünï.md'), 'utf8')).toBe('hi');
    const got = await call('GET', `/api/v1/notes/${encodeURIComponent('a b/c d/ünï.md')}`);
    expect(got.json.data.content).toBe('hi');
    const unencoded = await call('GET', '/api/v1/notes/a%20b/c%20d/%C3%BCn%C3%AF.md');
    expect(unencoded.json.data.path).toBe('a b/c d/ünï.md');
  });
});
