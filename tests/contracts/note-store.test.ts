import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { NOTE_STORE_CASES, runNoteStoreContract } from './note-store.contract.ts';

runNoteStoreContract('memoryNoteStore', {
  create: async () => ({ store: memoryNoteStore(), cleanup: async () => {} }),
  skip: [
    {
      reason: 'the memory store holds bytes and facts together: it has no one-open read to offer',
      tests: [NOTE_STORE_CASES.readWithInfo],
    },
  ],
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
