import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { runStateStoreContract, STATE_STORE_CASES } from './state-store.contract.ts';

// The Workers KV adapter runs the same suite in edge-stores.test.ts (against Miniflare's KV).

runStateStoreContract('memoryStateStore', {
  create: async () => ({ store: memoryStateStore(), cleanup: async () => {} }),
  skip: [
    {
      reason: 'memory state lives in its one object by design: a new store starts empty',
      tests: [STATE_STORE_CASES.reopen],
    },
  ],
});

runStateStoreContract('fsStateStore', {
  create: async () => {
    const base = await mkdtemp(join(tmpdir(), 'quire-state-contract-'));
    const dir = join(base, 'state');
    return {
      store: fsStateStore({ dir }),
      reopen: async () => fsStateStore({ dir }),
      cleanup: () => rm(base, { recursive: true, force: true }),
    };
  },
});
