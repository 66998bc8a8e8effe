import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rewriteObsidian, wikiParts } from '../../client-link/src/ui/obsidian-source.ts';
import { resolveTarget, vaultPaths } from '../../client-link/src/ui/vault-paths.ts';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

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

const api = async (path: string) =>
  ((await (await fetch(`${server.url}${path}`, { headers: key })).json()) as any).data;

it('every embed of an existing file in the fixture vault resolves and is served', async () => {
  const paths = vaultPaths(await api('/api/v1/folders/tree'));
  expect(paths.notes.sort()).toEqual(['Daily/2024-01-15.md', 'Home.md', 'Projects/Plan.md']);
  expect(paths.files.sort()).toEqual([
    'Attachments/Pasted image 20231024101010.png',
    'Attachments/chart.png',
    'Attachments/diagram.svg',
    'Attachments/memo.wav',
    'Attachments/report.pdf',
  ]);
  const fileEmbeds: { from: string; target: string; path: string | null }[] = [];
  const noteEmbeds: string[] = [];
  for (const notePath of paths.notes) {
    const note = await api(`/api/v1/notes/${encodeURIComponent(notePath)}`);
    const md = rewriteObsidian(note.content, () => null);
    for (const m of md.matchAll(/\(#embed=([^)\s]+)\)/g)) {
      const raw = decodeURIComponent(m[1]!);
      const target = raw.endsWith('|md') ? raw.slice(0, -3) : wikiParts(raw).target;
      const found = resolveTarget(paths, target, notePath);
      if (found?.kind === 'note') noteEmbeds.push(`${notePath} -> ${found.path}`);
      else fileEmbeds.push({ from: notePath, target, path: found?.path ?? null });
    }
  }
  // Home: pasted image, svg, markdown image, pdf, audio, one missing; Daily: chart.png by name.
  expect(fileEmbeds).toHaveLength(7);
  expect(fileEmbeds.filter((e) => e.path === null).map((e) => e.target)).toEqual(['missing-picture.png']);
  expect(noteEmbeds.sort()).toEqual(['Home.md -> Projects/Plan.md', 'Projects/Plan.md -> Home.md']);
  const types: Record<string, string> = {
    png: 'image/png',
    svg: 'image/svg+xml',
    pdf: 'application/pdf',
    wav: 'audio/wav',
  };
  for (const e of fileEmbeds.filter((x) => x.path)) {
    const res = await fetch(`${server.url}/api/v1/files/${encodeURIComponent(e.path!)}`, { headers: key });
    expect(res.status, e.path!).toBe(200);
    expect(res.headers.get('content-type')).toBe(types[e.path!.split('.').pop()!]);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(await readFile(join(FIXTURE, e.path!)));
  }
  // Code is not rewritten: the fenced `![[not-an-embed.png]]` stays text.
  expect(fileEmbeds.some((e) => e.target === 'not-an-embed.png')).toBe(false);
});

it('uploads land in the fixture vault attachment folder (attachmentFolderPath: Attachments)', async () => {
  const at = await api(`/api/v1/files/attachment-path?note=Daily%2F2024-01-15.md&name=chart.png`);
  expect(at).toEqual({ folder: 'Attachments', path: 'Attachments/chart 1.png' });
});

it('embeds follow a moved attachment by name, and a deleted one no longer resolves', async () => {
  const resolveAll = async () => {
    const paths = vaultPaths(await api('/api/v1/folders/tree'));
    return {
      byName: resolveTarget(paths, 'chart.png', 'Daily/2024-01-15.md')?.path ?? null,
      byPath: resolveTarget(paths, 'Attachments/chart.png', 'Home.md')?.path ?? null,
    };
  };
  expect(await resolveAll()).toEqual({ byName: 'Attachments/chart.png', byPath: 'Attachments/chart.png' });
  const moved = await fetch(`${server.url}/api/v1/files/Attachments%2Fchart.png/move`, {
    method: 'POST',
    headers: { ...key, 'content-type': 'application/json' },
    body: JSON.stringify({ path: 'Archive/chart.png' }),
  });
  expect(moved.status).toBe(200);
  // `![[chart.png]]` finds it by name in its new folder; a path written out does not (until part two
  // of issue 22 rewrites links on a file move).
  expect(await resolveAll()).toEqual({ byName: 'Archive/chart.png', byPath: null });
  const served = await fetch(`${server.url}/api/v1/files/Archive%2Fchart.png`, { headers: key });
  expect(served.status).toBe(200);
  const removed = await fetch(`${server.url}/api/v1/files/Archive%2Fchart.png`, {
    method: 'DELETE',
    headers: key,
  });
  expect(removed.status).toBe(200);
  expect(await resolveAll()).toEqual({ byName: null, byPath: null });
});
