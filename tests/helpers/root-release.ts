/**
 * The repository's own release (dist/release/quire-server), the one `npm start` runs, built at most
 * once for all the test files that start it. Two files that each built it unconditionally, at the
 * same time on two workers, removed each other's stage in the middle of `npm pack` (it failed with
 * 254), or under a server started from it. The build now holds a lock file, and a build that is
 * fresh (no source newer than its stamp, as `npm start` decides) is not done again.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isFresh } from '../../deploy/shared/release/fresh.js';

const ROOT = resolve(import.meta.dirname, '../..');
const LOCK = join(ROOT, 'dist/release.lock');
/** A lock older than this was left by a run that died while building (a build takes under 2 min). */
const STALE_MS = 10 * 60_000;

/** Builds the root release unless it is fresh; throws with npm's output when the build fails. */
export async function rootRelease(): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (Date.now() - lockTime() > STALE_MS) rmSync(LOCK, { force: true });
      else if (Date.now() > deadline) throw new Error(`${LOCK} held for over 5 minutes`);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    if (isFresh(ROOT, join(ROOT, 'dist/release/quire-server/.built'))) return;
    const build = spawnSync('npm', ['run', 'release', '--silent'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run release failed (${build.status}):\n${build.stderr}`);
  } finally {
    rmSync(LOCK, { force: true });
  }
}

function lockTime(): number {
  try {
    return statSync(LOCK).mtimeMs;
  } catch {
    return 0; // gone meanwhile: the next try takes it
  }
}
