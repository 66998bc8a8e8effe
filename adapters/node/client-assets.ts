import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientAssets } from '../http/client-ui.ts';

const NAME = /^(assets\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The built client from `dir` (client-link/dist). Files are read once and kept: a build writes
 * new hashed names, and `index.html` changes only with a rebuild, which comes with a restart.
 */
export function fsClientAssets(dir: string): ClientAssets {
  const cache = new Map<string, Promise<Uint8Array | null>>();
  return {
    get(name) {
      if (!NAME.test(name) || name.includes('..')) return Promise.resolve(null);
      let hit = cache.get(name);
      if (!hit) {
        hit = readFile(join(dir, name)).then(
          (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
          () => null,
        );
        // A missing file is not cached: the client may be built after the server started.
        void hit.then((b) => b === null && cache.delete(name));
        cache.set(name, hit);
      }
      return hit;
    },
  };
}
