import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { appendFile, open, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StateStore } from '../../core/ports.ts';
import { TEMP_PREFIX, tempsInFlight, writeAtomic } from './fs-safe.ts';

/**
 * Server state as files in `dir` (created with mode 0700), one file per key, written
 * atomically with mode 0600. Keys are plain file names. Temporary files a crash left behind
 * (the key itself still holds its previous value) are removed when the store is created.
 */
export function fsStateStore(opts: { dir: string }): StateStore {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(opts.dir)) {
    const abs = join(opts.dir, name);
    if (name.startsWith(TEMP_PREFIX) && !tempsInFlight.has(abs)) rmSync(abs, { force: true });
  }
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
    async putPieces(key, pieces) {
      const encoder = new TextEncoder();
      await writeAtomic(
        file(key),
        (async function* () {
          for await (const piece of pieces) yield encoder.encode(piece);
        })(),
        0o600,
      );
    },
    async putBytes(key, pieces) {
      await writeAtomic(file(key), pieces, 0o600);
    },
    async getRange(key, offset, length) {
      let fh: Awaited<ReturnType<typeof open>>;
      try {
        fh = await open(file(key), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
      try {
        const out = new Uint8Array(length);
        let got = 0;
        while (got < length) {
          const { bytesRead } = await fh.read(out, got, length - got, offset + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        return got === length ? out : out.subarray(0, got);
      } finally {
        await fh.close();
      }
    },
    async byteSize(key) {
      try {
        return (await stat(file(key))).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async append(key, value) {
      await appendFile(file(key), value, { mode: 0o600 });
    },
    async remove(key) {
      await rm(file(key), { force: true });
    },
  };
}
