import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsStateStore } from '../../adapters/store/fs-state-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { runPeopleContract } from './people.contract.ts';

runPeopleContract('memoryStateStore', async () => ({ state: memoryStateStore(), cleanup: async () => {} }));

runPeopleContract('fsStateStore', async () => {
  const base = await mkdtemp(join(tmpdir(), 'quire-people-contract-'));
  const dir = join(base, 'state');
  return {
    state: fsStateStore({ dir }),
    reopen: async () => fsStateStore({ dir }),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
});
