import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { loadConfig } from '../../../deploy/shared/config/server.ts';
import { tempDir } from '../../helpers/app.ts';

describe('FSYNC: the durability setting of note writes', () => {
  it('is on by default, off with FSYNC=0, and refuses anything else with a clear line', () => {
    expect(loadConfig({}).fsync).toBe(true);
    expect(loadConfig({ FSYNC: '0' }).fsync).toBe(false);
    expect(loadConfig({ FSYNC: 'on' }).fsync).toBe(true);
    expect(() => loadConfig({ FSYNC: 'sometimes' })).toThrow(/FSYNC must be true or false/);
  });

  for (const fsync of [true, false]) {
    it(`writes whole notes atomically with fsync ${fsync ? 'on' : 'off'}`, async () => {
      const tmp = await tempDir();
      try {
        const store = fsNoteStore({ dir: tmp.dir, watch: false, fsync });
        const bytes = new TextEncoder().encode('# Durable\n');
        const info = await store.write('deep/folder/n.md', bytes);
        expect(info.size).toBe(bytes.length);
        expect(await readFile(join(tmp.dir, 'deep/folder/n.md'), 'utf8')).toBe('# Durable\n');
        await store.write('deep/folder/n.md', new TextEncoder().encode('# Again\n'));
        expect(new TextDecoder().decode((await store.read('deep/folder/n.md'))!)).toBe('# Again\n');
        expect((await store.list()).map((f) => f.path)).toEqual(['deep/folder/n.md']);
      } finally {
        await tmp.cleanup();
      }
    });
  }
});
