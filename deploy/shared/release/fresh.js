// Whether the release artifact is older than the sources it is built from (plain JS: `npm start`
// asks this before anything is compiled). The newest mtime under the source folders is compared
// with the artifact's stamp, written last by the release build.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the release is built from, relative to the repository root. */
export const SOURCES = [
  'package.json',
  'package-lock.json',
  'core',
  'adapters',
  'relay',
  'sdk',
  'deploy/node',
  'deploy/relay',
  'deploy/shared',
  'client-link',
];
const SKIP = new Set(['node_modules', 'dist', '.git']);

/** The newest modification time (ms) of a file under `path` (0 when it does not exist). */
export function newestMtime(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    newest = Math.max(newest, newestMtime(join(path, e.name)));
  }
  return newest;
}

/** True when the artifact's stamp exists and is newer than every source. */
export function isFresh(root, stamp) {
  const built = newestMtime(stamp);
  return built > 0 && SOURCES.every((s) => newestMtime(join(root, s)) <= built);
}
