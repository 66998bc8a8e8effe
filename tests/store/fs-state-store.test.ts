import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../../adapters/store/fs-safe.ts';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import type { StateStore } from '../../core/ports.ts';

let dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'quire-state-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs = [];
});

const adapters: [string, () => Promise<StateStore>][] = [
  ['memoryStateStore', async () => memoryStateStore()],
  ['fsStateStore', async () => fsStateStore({ dir: join(await tempDir(), 'state') })],
];

describe.each(adapters)('StateStore basics: %s', (_name, create) => {
  let state: StateStore;
  beforeEach(async () => {
    state = await create();
  });

  it('get of an absent key is null', async () => {
    expect(await state.get('absent')).toBeNull();
  });

  it('put then get returns the same text, non-ASCII and empty included', async () => {
    await state.put('index-cache.json', '{"notes":["日本語","café"],"emoji":"👩🏽‍💻"}\n');
    await state.put('empty', '');
    expect(await state.get('index-cache.json')).toBe('{"notes":["日本語","café"],"emoji":"👩🏽‍💻"}\n');
    expect(await state.get('empty')).toBe('');
  });

  it('put replaces the whole value', async () => {
    await state.put('k', 'a long first value '.repeat(50));
    await state.put('k', 'short');
    expect(await state.get('k')).toBe('short');
  });

  it('remove deletes the key, touches no other, and is quiet when absent', async () => {
    await state.put('a', '1');
    await state.put('b', '2');
    await state.remove('a');
    expect(await state.get('a')).toBeNull();
    expect(await state.get('b')).toBe('2');
    await expect(state.remove('a')).resolves.toBeUndefined();
    await expect(state.remove('never-there')).resolves.toBeUndefined();
  });

  it('concurrent puts to one key end with exactly one of the values, in full', async () => {
    const values = Array.from({ length: 10 }, (_, i) => String.fromCharCode(65 + i).repeat(50_000 + i));
    await Promise.all(values.map((v) => state.put('contended', v)));
    const final = await state.get('contended');
    expect(values.filter((v) => v === final)).toHaveLength(1);
  });
});

describe('fsStateStore on disk', () => {
  it('writes files with mode 0600, even replacing a wider-open file', async () => {
    const dir = await tempDir();
    const state = fsStateStore({ dir });
    await state.put('credentials', 'secret');
    expect((await stat(join(dir, 'credentials'))).mode & 0o777).toBe(0o600);
    await writeFile(join(dir, 'loose'), 'old');
    await chmod(join(dir, 'loose'), 0o644);
    await state.put('loose', 'new');
    expect((await stat(join(dir, 'loose'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(dir, 'loose'), 'utf8')).toBe('new');
  });

  it('creates its folder (and missing parents) with mode 0700', async () => {
    const base = await tempDir();
    fsStateStore({ dir: join(base, 'state', 'nested') });
    expect((await stat(join(base, 'state'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(base, 'state', 'nested'))).mode & 0o777).toBe(0o700);
  });

  it('replaces atomically: readers see the old or the new value, and no temporary file remains', async () => {
    const dir = await tempDir();
    const state = fsStateStore({ dir });
    const before = 'a'.repeat(512 * 1024);
    const after = 'b'.repeat(400 * 1024);
    await state.put('big', before);
    const reads: Promise<string | null>[] = [];
    const writing = state.put('big', after);
    for (let i = 0; i < 20; i++) reads.push(state.get('big'));
    await writing;
    for (const value of await Promise.all(reads)) expect(value === before || value === after).toBe(true);
    expect(await state.get('big')).toBe(after);
    expect((await readdir(dir)).filter((n) => n.startsWith(TEMP_PREFIX))).toEqual([]);
  });

  it('removes the temporary files a crash left mid-write when it is created, keeping every key', async () => {
    const dir = await tempDir();
    await fsStateStore({ dir }).put('credentials.json', '{"v":1}');
    await writeFile(join(dir, `${TEMP_PREFIX}0123456789ab`), '{"v":1,"half');
    const state = fsStateStore({ dir });
    expect(await readdir(dir)).toEqual(['credentials.json']);
    expect(await state.get('credentials.json')).toBe('{"v":1}');
  });

  it('rejects a bad key in get, put and remove, writing nothing', async () => {
    const base = await tempDir();
    const dir = join(base, 'state');
    const state = fsStateStore({ dir });
    await writeFile(join(base, 'escape'), 'outside');
    for (const key of ['', '../escape', 'a/b', '.hidden', `${TEMP_PREFIX}x`, 'with space', 'nul\0byte']) {
      await expect(state.put(key, 'x'), `put ${JSON.stringify(key)}`).rejects.toThrow();
      await expect(state.get(key), `get ${JSON.stringify(key)}`).rejects.toThrow();
      await expect(state.remove(key), `remove ${JSON.stringify(key)}`).rejects.toThrow();
    }
    expect(await readdir(dir)).toEqual([]);
    expect((await readdir(base)).sort()).toEqual(['escape', 'state']);
    expect(await readFile(join(base, 'escape'), 'utf8')).toBe('outside');
  });
});
