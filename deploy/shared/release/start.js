#!/usr/bin/env node
// `npm start`: runs the release artifact (dist/release/quire-server), building it first only when a
// source is newer than the last build (never on every start). Plain JS: nothing is compiled to ask.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isFresh } from './fresh.js';

/** What `npm run release` needs: dev dependencies, so `npm ci --omit=dev` leaves them out. */
const BUILD_TOOLS = ['tsx', 'esbuild', 'vite'];

const root = join(import.meta.dirname, '../../..');
const stage = join(root, 'dist/release/quire-server');
if (!isFresh(root, join(stage, '.built'))) {
  // Without them the build dies on `tsx: not found` or a missing module; say what to do instead.
  const missing = BUILD_TOOLS.filter((t) => !existsSync(join(root, 'node_modules', t, 'package.json')));
  if (missing.length > 0) {
    process.stderr.write(
      `quire: npm start must build the release first, and its build tools (${missing.join(', ')}) are dev dependencies that npm ci --omit=dev leaves out: run npm ci here, or run the release artifact with node alone (npm run release where the dev dependencies are, then node quire/bin/quire.js serve; see docs/guide/deploy.md).\n`,
    );
    process.exit(1);
  }
  process.stderr.write(
    existsSync(join(stage, '.built'))
      ? 'quire: sources changed since the last release build; building it (npm run release)...\n'
      : 'quire: no release build yet; building it once (npm run release), then starting the server...\n',
  );
  const r = spawnSync('npm', ['run', 'release', '--silent'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// The bundle reads its command from argv, as if run as `node bin/quire.js <args>`.
const bin = join(stage, 'bin/quire.js');
process.argv = [process.argv[0], bin, ...process.argv.slice(2)];
await import(pathToFileURL(bin).href);
