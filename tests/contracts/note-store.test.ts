import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { runNoteStoreContract } from './note-store.contract.ts';

runNoteStoreContract('memoryNoteStore', {
  create: async () => ({ store: memoryNoteStore(), cleanup: async () => {} }),
});

runNoteStoreContract('fsNoteStore', {
  create: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'quire-contract-'));
    return {
      store: fsNoteStore({ dir, watch: false }),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
