import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsApp, memoryApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

describe('folder tree', () => {
  const files = {
    'top.md': '# Top',
    'work/plan.md': '---\ntitle: The Plan\n---\n',
    'work/2024/q1.md': 'q1',
    'work/2024/q2.md': 'q2',
    'home/list.md': 'list',
  };

  it('gives the root tree with vault-relative paths and counts', async () => {
    const { call } = await memoryApp(files);
    const res = await call('GET', '/api/v1/folders/tree');
    expect(res.status).toBe(200);
    const root = res.json.data;
    expect(root).toMatchObject({ path: '', type: 'folder', noteCount: 5 });
    expect(root.children.map((c: any) => [c.type, c.path])).toEqual([
      ['folder', 'home'],
      ['folder', 'work'],
      ['note', 'top.md'],
    ]);
  });

  it('gives a subfolder tree with vault-relative paths', async () => {
    const { call } = await memoryApp(files);
    const res = await call('GET', '/api/v1/folders/tree/work');
    expect(res.json.data).toEqual({
      name: 'work',
      path: 'work',
      type: 'folder',
      noteCount: 3,
      children: [
        {
          name: '2024',
          path: 'work/2024',
          type: 'folder',
          noteCount: 2,
          children: [
            { name: 'q1.md', path: 'work/2024/q1.md', type: 'note', title: 'q1' },
            { name: 'q2.md', path: 'work/2024/q2.md', type: 'note', title: 'q2' },
          ],
        },
        { name: 'plan.md', path: 'work/plan.md', type: 'note', title: 'The Plan' },
      ],
    });
    const nested = await call('GET', `/api/v1/folders/tree/${encodeURIComponent('work/2024')}`);
    expect(nested.json.data.children.map((c: any) => c.path)).toEqual(['work/2024/q1.md', 'work/2024/q2.md']);
  });

  it('answers 404 FOLDER_NOT_FOUND for an unknown folder and 400 for a bad one', async () => {
    const { call } = await memoryApp(files);
    const res = await call('GET', '/api/v1/folders/tree/nope');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('FOLDER_NOT_FOUND');
    expect((await call('GET', '/api/v1/folders/tree/..%2F..')).status).toBe(400);
  });

  it('shows empty folders of a filesystem vault', async () => {
    const made = await fsApp();
    cleanups.push(made.cleanup);
    await mkdir(join(made.vault, 'empty/inner'), { recursive: true });
    await made.notes.load();
    const res = await made.call('GET', '/api/v1/folders/tree/empty');
    expect(res.json.data).toMatchObject({ path: 'empty', noteCount: 0, children: [{ path: 'empty/inner' }] });
  });
});

describe('search', () => {
  it('finds notes by body, title and tag with a snippet, best first', async () => {
    const { call } = await memoryApp({
      'a.md': '---\ntitle: Gardening\ntags: [outdoor]\n---\nTomatoes need sun and water every day.',
      'b.md': '# Cooking\nA tomato sauce with basil.',
      'c.md': 'Nothing to see.',
    });
    const res = await call('GET', '/api/v1/search?q=tomato');
    expect(res.status).toBe(200);
    const paths = res.json.data.map((h: any) => h.path);
    expect(paths.sort()).toEqual(['a.md', 'b.md']);
    const a = res.json.data.find((h: any) => h.path === 'a.md');
    expect(a).toMatchObject({ title: 'Gardening', tags: ['outdoor'] });
    expect(a.snippet).toMatch(/Tomatoes need sun/);
    expect(typeof a.score).toBe('number');
    const byTitle = await call('GET', '/api/v1/search?q=gardening');
    expect(byTitle.json.data[0].path).toBe('a.md');
    const byTag = await call('GET', '/api/v1/search?q=outdoor');
    expect(byTag.json.data[0].path).toBe('a.md');
    expect((await call('GET', '/api/v1/search?q=tomato&limit=1')).json.data).toHaveLength(1);
  });

  it('follows changes and refuses bad parameters', async () => {
    const { call } = await memoryApp({ 'a.md': 'zebra' });
    await call('PUT', '/api/v1/notes/a.md', { content: 'giraffe' });
    expect((await call('GET', '/api/v1/search?q=zebra')).json.data).toEqual([]);
    expect((await call('GET', '/api/v1/search?q=giraffe')).json.data).toHaveLength(1);
    await call('DELETE', '/api/v1/notes/a.md');
    expect((await call('GET', '/api/v1/search?q=giraffe')).json.data).toEqual([]);
    expect((await call('GET', '/api/v1/search')).status).toBe(400);
    expect((await call('GET', '/api/v1/search?q=x&limit=0')).status).toBe(400);
    expect((await call('GET', '/api/v1/search?q=x&limit=abc')).status).toBe(400);
  });
});

describe('edits made outside the server', () => {
  it('appear through the API with the link graph updated', async () => {
    const made = await fsApp({ watch: true });
    cleanups.push(made.cleanup);
    const { call, vault } = made;
    await call('POST', '/api/v1/notes', { path: 'src.md', content: 'see [[ext]]' });
    await mkdir(join(vault, 'sub'), { recursive: true });
    await writeFile(join(vault, 'sub/ext.md'), '# External\nwritten by an editor');
    const got = await until('the condition', async () => {
      const r = await call('GET', `/api/v1/notes/${encodeURIComponent('sub/ext.md')}`);
      return r.status === 200 && r.json.data.backlinks.length === 1 ? r : null;
    });
    expect(got?.json.data.title).toBe('External');
    expect((await call('GET', '/api/v1/notes/src.md')).json.data.links[0].path).toBe('sub/ext.md');

    await writeFile(join(vault, 'sub/ext.md'), '# Renamed Title\n');
    await until('the condition', async () => {
      const list = await call('GET', '/api/v1/notes');
      return list.json.data.find((n: any) => n.path === 'sub/ext.md')?.title === 'Renamed Title';
    });

    await rm(join(vault, 'sub/ext.md'));
    await until(
      'the condition',
      async () => (await call('GET', '/api/v1/notes/src.md')).json.data.links[0].path === null,
    );
    expect((await call('GET', `/api/v1/notes/${encodeURIComponent('sub/ext.md')}`)).status).toBe(404);
  });
});
