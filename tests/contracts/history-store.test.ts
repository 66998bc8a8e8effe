import { fsHistoryStore } from '../../adapters/store/fs-history-store.ts';
import { memoryHistoryStore } from '../../adapters/store/memory-history-store.ts';
import { tempDir } from '../helpers/app.ts';
import { HISTORY_STORE_CASES, runHistoryStoreContract } from './history-store.contract.ts';

// The R2 adapter (Cloudflare Workers) runs the same suite in edge-stores.test.ts (Miniflare's R2).

runHistoryStoreContract('memoryHistoryStore', {
  create: async () => ({ store: memoryHistoryStore(), cleanup: async () => {} }),
  skip: [
    {
      reason: 'a memory history lives in its one object by design: a new store starts empty',
      tests: [HISTORY_STORE_CASES.reopen],
    },
  ],
});

runHistoryStoreContract('fsHistoryStore', {
  create: async () => {
    const tmp = await tempDir('quire-history-contract-');
    const dir = `${tmp.dir}/history`;
    const opened: { close(): Promise<void> }[] = [];
    const open = () => {
      const s = fsHistoryStore({ dir, fsync: false });
      opened.push(s);
      return s;
    };
    return {
      store: open(),
      reopen: async () => open(),
      cleanup: async () => {
        for (const s of opened) await s.close();
        await tmp.cleanup();
      },
    };
  },
});
