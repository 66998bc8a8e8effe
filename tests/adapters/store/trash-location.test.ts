import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsHistoryStore } from '../../../adapters/store/fs-history-store.ts';
import { createHistory } from '../../../core/history/history.ts';
import { ConfigError, loadConfig } from '../../../deploy/shared/config/server.ts';
import { tempDir } from '../../helpers/app.ts';
import { liveServer } from '../../helpers/live-server.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real server over a vault in a temp folder; `api` calls it with its first key. */
async function server(env: Record<string, string>) {
  const vault = await tempDir('quire-trash-vault-');
  cleanups.push(vault.cleanup);
  const s = await liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir, ...env });
  cleanups.push(s.stop);
  const api = async (method: string, path: string, body?: unknown, raw?: Uint8Array<ArrayBuffer>) => {
    const res = await fetch(`${s.url}/api/v1${path}`, {
      method,
      headers: {
        'x-service-key': s.firstKey,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  return { vault: vault.dir, api };
}

describe('TRASH_DIR: the trash in DATA_DIR (default) or also in the vault`s .trash/', () => {
  it('TRASH_DIR is data or vault (default data); anything else is a config error naming it', () => {
    expect(loadConfig({}).trashDir).toBe('data');
    expect(loadConfig({ TRASH_DIR: 'vault' }).trashDir).toBe('vault');
    expect(() => loadConfig({ TRASH_DIR: 'attic' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRASH_DIR: 'attic' })).toThrow(/TRASH_DIR/);
  });

  it('default: a delete leaves nothing in the vault; the item is in the API trash', async () => {
    const { vault, api } = await server({});
    await api('POST', '/notes', { path: 'gone.md', content: '# Gone\n' });
    expect((await api('DELETE', '/notes/gone.md')).status).toBe(200);
    expect(existsSync(join(vault, '.trash'))).toBe(false);
    expect((await api('GET', '/trash')).json.data).toMatchObject([{ path: 'gone.md', kind: 'note' }]);
  }, 60_000);

  it('vault: deleted notes and files are copied to .trash/ (never indexed, listed, searched or watched); restore and delete for good remove the copy', async () => {
    const { vault, api } = await server({ TRASH_DIR: 'vault' });
    const text = '# Plans\n\nThe zanzibarquux plan.\n';
    await api('POST', '/notes', { path: 'work/plans.md', content: text });
    await api('POST', '/notes', { path: 'keep.md', content: 'links to [[plans]]' });
    const png = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    expect((await api('PUT', '/files/img/p.png', undefined, png)).status).toBeLessThan(300);

    expect((await api('DELETE', '/notes/work/plans.md')).status).toBe(200);
    expect(await readFile(join(vault, '.trash/work/plans.md'), 'utf8')).toBe(text);
    expect(existsSync(join(vault, 'work/plans.md'))).toBe(false);
    expect((await api('DELETE', '/files/img/p.png')).status).toBe(200);
    expect(new Uint8Array(await readFile(join(vault, '.trash/img/p.png')))).toEqual(png);
    // The same path deleted again: a free name beside the first copy.
    await api('POST', '/notes', { path: 'work/plans.md', content: '# Plans\n\nsecond\n' });
    await api('DELETE', '/notes/work/plans.md');
    expect(await readFile(join(vault, '.trash/work/plans (2).md'), 'utf8')).toBe('# Plans\n\nsecond\n');

    // A note Obsidian (or a person) drops into .trash/ by hand, then a sentinel the watcher sees:
    // once the sentinel is listed, the .trash/ file was seen too, and ignored.
    await mkdir(join(vault, '.trash/by-hand'), { recursive: true });
    await writeFile(join(vault, '.trash/by-hand/zanzibarquux.md'), '# zanzibarquux by hand\n');
    await writeFile(join(vault, 'sentinel.md'), '# Sentinel\n');
    await until(
      'the condition',
      async () =>
        (await api('GET', '/notes')).json.data.some((n: { path: string }) => n.path === 'sentinel.md'),
      15_000,
    );
    const paths = (await api('GET', '/notes')).json.data.map((n: { path: string }) => n.path).sort();
    expect(paths).toEqual(['keep.md', 'sentinel.md']);
    expect((await api('GET', '/search?q=zanzibarquux')).json.data.results ?? []).toEqual([]);
    const tree = JSON.stringify((await api('GET', '/folders/tree')).json.data);
    expect(tree).not.toContain('.trash');
    expect(JSON.stringify((await api('GET', '/files')).json?.data ?? [])).not.toContain('.trash');
    expect((await api('GET', '/notes/.trash%2Fwork%2Fplans.md')).status).toBe(400);

    // Restore: back at its path, the copy gone; delete for good: the copy gone.
    type Item = { id: string; path: string; kind: string; size: number; by: string };
    const items = (await api('GET', '/trash')).json.data as Item[];
    // One item per delete: the watcher seeing the API's own deletes adds no "outside" items.
    expect(items.map((i) => `${i.kind}:${i.path}:${i.by.split(':')[0]}`).sort()).toEqual([
      'file:img/p.png:key',
      'note:work/plans.md:key',
      'note:work/plans.md:key',
    ]);
    const enc = new TextEncoder();
    const first = items.find((i) => i.size === enc.encode(text).length)!;
    const back = await api('POST', `/trash/${first.id}/restore`);
    expect(back.json.data).toEqual({ path: 'work/plans.md' });
    expect(await readFile(join(vault, 'work/plans.md'), 'utf8')).toBe(text);
    expect(existsSync(join(vault, '.trash/work/plans.md'))).toBe(false);
    expect(existsSync(join(vault, '.trash/work/plans (2).md'))).toBe(true);
    const second = items.find((i) => i.kind === 'note' && i !== first)!;
    expect((await api('DELETE', `/trash/${second.id}`)).status).toBe(200);
    expect(existsSync(join(vault, '.trash/work'))).toBe(false);
    const file = items.find((i) => i.kind === 'file')!;
    expect((await api('POST', `/trash/${file.id}/restore`)).json.data).toEqual({ path: 'img/p.png' });
    expect(existsSync(join(vault, '.trash/img'))).toBe(false);
    expect(existsSync(join(vault, '.trash/by-hand/zanzibarquux.md'))).toBe(true);
  }, 60_000);

  it('the copy survives a restart (recorded in the journal) and goes with the retention purge', async () => {
    const t = await tempDir('quire-trash-restart-');
    cleanups.push(t.cleanup);
    const vault = join(t.dir, 'vault');
    const dir = join(t.dir, 'history');
    let now = 1_000_000;
    const clock = { now: () => now };
    const one = fsHistoryStore({ dir, fsync: false, vaultTrash: vault });
    const h1 = createHistory({ store: one, clock });
    await h1.load();
    await h1.trash('a/x.md', 'note', new TextEncoder().encode('x'), 'api');
    await h1.trash('../escape.md', 'note', new TextEncoder().encode('y'), 'api').catch(() => null);
    await one.close();
    expect(existsSync(join(t.dir, 'escape.md'))).toBe(false);
    expect(await readFile(join(vault, '.trash/a/x.md'), 'utf8')).toBe('x');
    const two = fsHistoryStore({ dir, fsync: false, vaultTrash: vault });
    cleanups.push(two.close);
    const h2 = createHistory({ store: two, clock });
    await h2.load();
    now += 10_000;
    const gone = await h2.prune({ maxAgeMs: 1e12, maxBytes: 1e12, trashMs: 5_000 });
    expect(gone.trash).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(vault, '.trash/a/x.md'))).toBe(false);
    expect(h2.listTrash()).toEqual([]);
  });
});
