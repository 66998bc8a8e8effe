#!/usr/bin/env node
// `npm start`: runs the release artifact (dist/release/quire-server), building it first only when a
// source is newer than the last build (never on every start). Plain JS: nothing is compiled to ask.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isFresh } from './fresh.js';

const root = join(import.meta.dirname, '../../..');
const stage = join(root, 'dist/release/quire-server');
if (!isFresh(root, join(stage, '.built'))) {
  process.stderr.write(
    'quire: sources changed since the last release build; building it (npm run release)...\n',
  );
  const r = spawnSync('npm', ['run', 'release', '--silent'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// The bundle reads its command from argv, as if run as `node bin/quire.js <args>`.
const bin = join(stage, 'bin/quire.js');
process.argv = [process.argv[0], bin, ...process.argv.slice(2)];
await import(pathToFileURL(bin).href);
