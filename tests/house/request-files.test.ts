/**
 * The files one request crosses stay under their ceilings: bench/request-files.ts counts, with
 * V8's coverage, the source files a relayed read of an uncached note and an MCP search with a
 * folder key run code in, on the plain path (HOT_ROUTES=0) and with the hot routes, and exits 1
 * when a count is above its ceiling (its CEILINGS). Run as its own process: the coverage session
 * must see the server's modules load and no other test's.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('files a request crosses', () => {
  it('a relayed read and an MCP scoped search stay under the ceilings of bench/request-files.ts', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/request-files.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 110_000,
    });
    expect({ status: run.status, out: run.stdout, err: run.stderr.slice(-2000) }).toMatchObject({
      status: 0,
    });
    expect(run.stdout).toMatch(/^plain: relayed read of an uncached note: \d+ files$/m);
    expect(run.stdout).toMatch(/^hot: MCP search with a folder key: \d+ files$/m);
  }, 120_000);
});
