import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateFileMode } from '../../core/security/types.ts';

/**
 * Reads the permission bits of `dir` (as `.`) and of the files directly in it, for the
 * security audit. A missing folder gives an empty list; subfolders (the vault) are skipped.
 */
export function stateFileModes(dir: string): () => Promise<StateFileMode[]> {
  return async () => {
    let names: string[];
    let self: StateFileMode;
    try {
      self = { name: '.', mode: (await lstat(dir)).mode & 0o777, dir: true };
      names = await readdir(dir);
    } catch {
      return [];
    }
    const files = await Promise.all(
      names.map(async (name): Promise<StateFileMode | null> => {
        try {
          const st = await lstat(join(dir, name));
          return st.isFile() ? { name, mode: st.mode & 0o777, dir: false } : null;
        } catch {
          return null; // removed meanwhile
        }
      }),
    );
    return [self, ...files.filter((f): f is StateFileMode => f !== null)];
  };
}
