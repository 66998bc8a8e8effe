import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFresh, SOURCES } from '../../deploy/shared/release/fresh.js';

/** npm start builds the artifact only when a source is newer than its stamp: never on every start. */
describe('npm start: is the release artifact fresh?', () => {
  const root = mkdtempSync(join(tmpdir(), 'quire-fresh-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const stamp = join(root, 'dist/release/quire-server/.built');
  const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

  it('is stale with no artifact, fresh after a build, stale again once any source changes', () => {
    mkdirSync(join(root, 'core/notes'), { recursive: true });
    mkdirSync(join(root, 'client-link/dist'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{}');
    writeFileSync(join(root, 'core/notes/a.ts'), '');
    writeFileSync(join(root, 'client-link/dist/index.html'), '');
    at(join(root, 'package.json'), 1000);
    at(join(root, 'core/notes/a.ts'), 1000);
    expect(isFresh(root, stamp)).toBe(false);

    mkdirSync(join(root, 'dist/release/quire-server'), { recursive: true });
    writeFileSync(stamp, 'built');
    at(stamp, 2000);
    // The client's own build output is not a source: writing it does not make the artifact stale.
    at(join(root, 'client-link/dist/index.html'), 3000);
    expect(isFresh(root, stamp)).toBe(true);

    at(join(root, 'core/notes/a.ts'), 3000);
    expect(isFresh(root, stamp)).toBe(false);
    expect(SOURCES).toEqual(
      expect.arrayContaining(['core', 'adapters', 'relay', 'client-link', 'package-lock.json']),
    );
  });
});
