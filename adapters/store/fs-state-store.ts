import { mkdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateStore } from '../../core/ports.ts';
import { writeAtomic } from './fs-safe.ts';

/**
 * Server state as files in `dir` (created with mode 0700), one file per key, written
 * atomically with mode 0600. Keys are plain file names.
 */
export function fsStateStore(opts: { dir: string }): StateStore {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const file = (key: string) => {
    if (!/^[a-z0-9][a-z0-9._-]*$/i.test(key)) throw new Error(`fsStateStore: bad key ${key}`);
    return join(opts.dir, key);
  };
  return {
    async get(key) {
      try {
        return await readFile(file(key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async put(key, value) {
      await writeAtomic(file(key), new TextEncoder().encode(value), 0o600);
    },
    async remove(key) {
      await rm(file(key), { force: true });
    },
  };
}
