import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { vaultPaths } from '../../client-link/src/ui/vault-paths.ts';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/obsidian-vault', import.meta.url));
let server: LiveServer;
let vault: Awaited<ReturnType<typeof tempDir>>;
let key: Record<string, string>;

beforeAll(async () => {
  vault = await tempDir('quire-fixture-');
  await cp(FIXTURE, vault.dir, { recursive: true });
  server = await liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir });
  key = { 'x-service-key': server.firstKey };
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await vault?.cleanup();
});

interface Link {
  target: string;
  path: string | null;
  kind: string;
  type: 'note' | 'file';
  heading?: string;
  alias?: string;
}
const enc = encodeURIComponent;
const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = (await res.json()) as any;
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body.data;
};
const note = (path: string) => api(`/api/v1/notes/${enc(path)}`);
const linksOf = async (path: string): Promise<Link[]> => (await note(path)).links;
const linkTo = async (from: string, target: string) => (await linksOf(from)).find((l) => l.target === target);
const moveFile = (from: string, to: string, updateLinks?: boolean) =>
  api(`/api/v1/files/${enc(from)}/move`, { method: 'POST', body: JSON.stringify({ path: to, updateLinks }) });

const NOTES = ['Daily/2024-01-15.md', 'Home.md', 'Projects/Plan.md', 'Projects/Sub/Deep.md'];

it('every link and embed to an existing file in the fixture vault resolves on the server and is served', async () => {
  const paths = vaultPaths(await api('/api/v1/folders/tree'));
  expect(paths.notes.sort()).toEqual(NOTES);
  const files: { from: string; link: Link }[] = [];
  const notes: { from: string; link: Link }[] = [];
  for (const from of NOTES)
    for (const link of await linksOf(from)) (link.type === 'file' ? files : notes).push({ from, link });
  const count = (from: string, kind: string) =>
    files.filter((f) => f.from === from && f.link.kind === kind).length;
  // One link per distinct target (the first occurrence's kind). Home: 4 embeds (one missing), the
  // table's `[[report.pdf\|the report]]` (its `![[report.pdf]]` is the same target), the markdown
  // image; Daily: chart.png by name; Deep: 3 written as paths (absolute, relative, from the root).
  expect(files).toHaveLength(10);
  expect([count('Home.md', 'embed'), count('Home.md', 'wikilink'), count('Home.md', 'markdown')]).toEqual([
    4, 1, 1,
  ]);
  expect(count('Daily/2024-01-15.md', 'embed')).toBe(1);
  expect([count('Projects/Sub/Deep.md', 'markdown'), count('Projects/Sub/Deep.md', 'embed')]).toEqual([2, 1]);
  expect(files.filter((f) => f.link.path === null).map((f) => f.link.target)).toEqual([
    'missing-picture.png',
  ]);
  // Each resolved path is served, byte for byte.
  for (const { link } of files.filter((f) => f.link.path !== null)) {
    const res = await fetch(`${server.url}/api/v1/files/${enc(link.path!)}`, { headers: key });
    expect(res.status, link.path!).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(await readFile(join(FIXTURE, link.path!)));
  }
  expect(
    Object.fromEntries(
      files.filter((f) => f.from === 'Projects/Sub/Deep.md').map((f) => [f.link.target, f.link.path]),
    ),
  ).toEqual({
    '../../Attachments/diagram.svg': 'Attachments/diagram.svg',
    '/Attachments/report.pdf': 'Attachments/report.pdf',
    'Attachments/chart.png': 'Attachments/chart.png',
  });
  // Note links and embeds keep resolving as notes.
  expect(notes.filter((n) => n.link.path === null).map((n) => n.link.target)).toEqual([]);
});

it('reads each Obsidian construct of the fixture vault: comments, block references, block ids, heading links, nested tags', async () => {
  const home = await note('Home.md');
  expect(home.tags).toEqual(['fixture', 'obsidian', 'project/alpha', 'project/beta/sub']);
  const targets = home.links.map((l: Link) => l.target);
  expect(targets).not.toContain('Hidden note'); // inside %% %%
  expect(targets).not.toContain('Not a link'); // inside a fence
  expect(home.links.find((l: Link) => l.target === 'Projects/Plan')).toMatchObject({
    path: 'Projects/Plan.md',
    kind: 'wikilink',
    type: 'note',
  });
  const deep = await note('Projects/Sub/Deep.md');
  expect(deep.tags).toEqual(['project']);
  expect(deep.links.map((l: Link) => l.target)).not.toContain('Nowhere');
  expect(deep.links.find((l: Link) => l.target === '2024-01-15')).toMatchObject({
    heading: '^monday-block',
    path: 'Daily/2024-01-15.md',
  });
  // Words only in comments, and block ids, are not searchable.
  // (`"deep-1"` as a phrase: any word may match, and the note is named Deep.)
  for (const q of ['hiddentag', 'secret', 'multi', '"deep-1"'])
    expect(
      (await api(`/api/v1/search?q=${enc(q)}`)).map((h: { path: string }) => h.path),
      q,
    ).toEqual([]);
  // The plain words around them are, and the snippet shows no comment.
  const inline = await api('/api/v1/search?q=inline');
  expect(inline.map((h: { path: string }) => h.path)).toEqual(['Projects/Sub/Deep.md']);
  expect(inline[0].snippet).toContain('Inline comment');
  expect(inline[0].snippet).not.toContain('secret');
  // Tags nest: the tag list counts each whole tag.
  const tags = Object.fromEntries(
    (await api('/api/v1/tags')).map((t: { tag: string; count: number }) => [t.tag, t.count]),
  );
  expect(tags).toMatchObject({ 'project/alpha': 2, 'project/beta/sub': 1, project: 1 });
});

it('uploads land in the fixture vault attachment folder (attachmentFolderPath: Attachments)', async () => {
  const at = await api(`/api/v1/files/attachment-path?note=Daily%2F2024-01-15.md&name=chart.png`);
  expect(at).toEqual({ folder: 'Attachments', path: 'Attachments/chart 1.png' });
});

it('a file move with updateLinks rewrites the embeds and links to it; a move without keeps links true by name', async () => {
  const moved = await moveFile('Attachments/chart.png', 'Media/chart 2024.png', true);
  expect(moved.path).toBe('Media/chart 2024.png');
  expect(moved.rewritten.sort()).toEqual(['Daily/2024-01-15.md', 'Home.md', 'Projects/Sub/Deep.md']);
  expect((await note('Home.md')).content).toContain('![chart](Media/chart%202024.png)');
  expect((await note('Daily/2024-01-15.md')).content).toContain('![[chart 2024.png]] numbers');
  expect((await note('Projects/Sub/Deep.md')).content).toContain('![[Media/chart 2024.png]].');
  for (const [from, target] of [
    ['Home.md', 'Media/chart 2024.png'],
    ['Daily/2024-01-15.md', 'chart 2024.png'],
    ['Projects/Sub/Deep.md', 'Media/chart 2024.png'],
  ] as const)
    expect((await linkTo(from, target))?.path, from).toBe('Media/chart 2024.png');

  // Without updateLinks: a link by name follows the file; a path written out no longer resolves.
  const plain = await moveFile('Media/chart 2024.png', 'Archive/chart 2024.png');
  expect(plain.rewritten).toBeUndefined();
  expect((await linkTo('Daily/2024-01-15.md', 'chart 2024.png'))?.path).toBe('Archive/chart 2024.png');
  expect(await linkTo('Home.md', 'Media/chart 2024.png')).toMatchObject({ path: null, type: 'file' });
  const served = await fetch(`${server.url}/api/v1/files/${enc('Archive/chart 2024.png')}`, { headers: key });
  expect(served.status).toBe(200);
});

it('a deleted file makes its links unresolved, and they come back when it is created again', async () => {
  const bytes = await readFile(join(FIXTURE, 'Attachments/report.pdf'));
  await api(`/api/v1/files/${enc('Attachments/report.pdf')}`, { method: 'DELETE' });
  expect(await linkTo('Home.md', 'report.pdf')).toMatchObject({ path: null, type: 'file' });
  expect(await linkTo('Projects/Sub/Deep.md', '/Attachments/report.pdf')).toMatchObject({ path: null });
  const put = await fetch(`${server.url}/api/v1/files/${enc('Attachments/report.pdf')}`, {
    method: 'PUT',
    headers: key,
    body: bytes,
  });
  expect(put.status).toBe(201);
  expect((await linkTo('Home.md', 'report.pdf'))?.path).toBe('Attachments/report.pdf');
  expect((await linkTo('Projects/Sub/Deep.md', '/Attachments/report.pdf'))?.path).toBe(
    'Attachments/report.pdf',
  );
});

it('files added and removed outside the server (the watcher) resolve and unresolve links', async () => {
  await api('/api/v1/notes', {
    method: 'POST',
    body: JSON.stringify({
      path: 'Watched.md',
      content: 'See ![[outside.png]] and ![](Attachments/outside.png).\n',
    }),
  });
  expect(await linkTo('Watched.md', 'outside.png')).toMatchObject({ path: null, type: 'file' });
  await writeFile(join(vault.dir, 'Attachments', 'outside.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await until(
    'the condition',
    async () => (await linkTo('Watched.md', 'outside.png'))?.path === 'Attachments/outside.png',
    10_000,
  );
  expect((await linkTo('Watched.md', 'Attachments/outside.png'))?.path).toBe('Attachments/outside.png');
  await rm(join(vault.dir, 'Attachments', 'outside.png'));
  await until(
    'the condition',
    async () => (await linkTo('Watched.md', 'outside.png'))?.path === null,
    10_000,
  );
});
