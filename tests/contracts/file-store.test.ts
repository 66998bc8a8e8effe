import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fsFileStore } from '../../adapters/store/fs-file-store.ts';
import { memoryFileStore } from '../../adapters/store/memory-file-store.ts';
import { tempDir } from '../helpers/app.ts';
import { runFileStoreContract } from './file-store.contract.ts';

runFileStoreContract('memory', {
  create: async () => ({ store: memoryFileStore(), cleanup: async () => {} }),
});
runFileStoreContract('fs', {
  create: async () => {
    const tmp = await tempDir();
    return { store: fsFileStore({ dir: tmp.dir }), cleanup: tmp.cleanup };
  },
});

it('fs: lists no notes, dot-folders or temporaries, and reads .obsidian/app.json', async () => {
  const tmp = await tempDir();
  try {
    await mkdir(join(tmp.dir, '.obsidian'));
    await writeFile(join(tmp.dir, '.obsidian', 'app.json'), '{"attachmentFolderPath":"./"}');
    await writeFile(join(tmp.dir, 'note.md'), '# n');
    await writeFile(join(tmp.dir, '.quire-tmp-abc'), 'x');
    await writeFile(join(tmp.dir, 'a.png'), 'x');
    const store = fsFileStore({ dir: tmp.dir });
    expect((await store.list()).map((f) => f.path)).toEqual(['a.png']);
    expect(await store.obsidianAppConfig()).toBe('{"attachmentFolderPath":"./"}');
  } finally {
    await tmp.cleanup();
  }
});
