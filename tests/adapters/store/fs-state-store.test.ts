import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../../../adapters/store/fs-safe.ts';
import { fsStateStore } from '../../../adapters/store/fs-state-store.ts';

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

// The port's guarantees (get, put, remove, concurrency, reopening) are in
// tests/contracts/state-store.contract.ts; these are the file-specific ones.
describe('fsStateStore on disk', () => {
  it('writes binary values in pieces (mode 0600) and reads them by byte range; absent keys read null', async () => {
    const dir = await tempDir();
    const state = fsStateStore({ dir });
    expect(await state.byteSize!('snap.bin')).toBeNull();
    expect(await state.getRange!('snap.bin', 0, 4)).toBeNull();
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) & 0xff);
    await state.putBytes!(
      'snap.bin',
      (async function* () {
        yield bytes.subarray(0, 1000);
        yield bytes.subarray(1000);
      })(),
    );
    expect((await stat(join(dir, 'snap.bin'))).mode & 0o777).toBe(0o600);
    expect(await state.byteSize!('snap.bin')).toBe(70_000);
    expect(await state.getRange!('snap.bin', 65_000, 100)).toEqual(bytes.subarray(65_000, 65_100));
    // A range past the end gives what there is.
    expect(await state.getRange!('snap.bin', 69_990, 100)).toEqual(bytes.subarray(69_990));
    await state.remove('snap.bin');
    expect(await state.byteSize!('snap.bin')).toBeNull();
  });

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
