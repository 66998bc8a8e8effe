/**
 * No tracker numbers in the code: "(issue 30)" tells a reader of the repository nothing, since the
 * tracker is not part of it. A comment, a test's name or a label says the why instead (what the
 * change was for, the budget it keeps, the finding it answers).
 *
 * Every source, test and bench file is read (markdown docs, the changelog and bench results are
 * records, not code, and are left alone); a line naming an issue by its number fails with its
 * `file:line`. This file is the one exception, as it spells the pattern out.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const ROOTS = ['core', 'adapters', 'relay', 'deploy', 'sdk', 'http-kit', 'client-link/src', 'tests', 'bench'];
/** Folders never read: installed or built code, and the bench's recorded results. */
const SKIP = new Set(['node_modules', 'dist', 'bench/results']);
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const TRACKER = /\bissues? \d+\b/i;
const SELF = relative(ROOT, import.meta.filename)
  .split('\\')
  .join('/');

function codeFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const rel = relative(ROOT, path).split('\\').join('/');
      if (statSync(path).isDirectory()) {
        if (!SKIP.has(entry) && !SKIP.has(rel)) walk(path);
      } else if (CODE.test(entry) && rel !== SELF) files.push(rel);
    }
  };
  for (const root of ROOTS) walk(join(ROOT, root));
  return files;
}

describe('no tracker numbers in the code', () => {
  it('reads the code it is meant to read', () => {
    const files = codeFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.startsWith('bench/results/'))).toBe(false);
  });

  it('no comment, test name or label names an issue by its number', () => {
    const found: string[] = [];
    for (const file of codeFiles()) {
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (TRACKER.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found, 'say the why instead of the tracker number').toEqual([]);
  });
});
