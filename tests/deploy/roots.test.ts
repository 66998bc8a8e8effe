/**
 * The runtime roots stay thin and independent (docs/reference/architecture.md "Runtime roots"): each is a
 * short file over the shared configuration, composition and lifecycle; none reaches into the Node
 * root; and Redis' client is loaded only by a relay configured with REDIS_URL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { ROOT, runCommand } from '../helpers/child.ts';

const ROOTS = [
  'deploy/node/main.ts',
  'deploy/bun/main.ts',
  'deploy/deno/main.ts',
  'deploy/relay/main.ts',
  'deploy/workerd/worker.ts',
];

/** The repository paths `file` imports by a relative specifier. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import\()\s*['"](\.[^'"]+)['"]/g)].map((m) =>
    relative(ROOT, resolve(ROOT, file, '..', m[1]!)),
  );
}

/** Every file under `dir` (recursively). */
function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe('the runtime roots', () => {
  it.each(ROOTS)('%s is under 40 lines', (root) => {
    const lines = readFileSync(join(ROOT, root), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(40);
  });

  it('no root imports another root, and deploy/shared imports none (by a relative import)', () => {
    const roots = ['deploy/node', 'deploy/bun', 'deploy/deno', 'deploy/relay', 'deploy/workerd'];
    const offenders: string[] = [];
    for (const dir of [...roots, 'deploy/shared']) {
      for (const file of files(dir)) {
        for (const target of importsOf(file)) {
          const other = roots.find((r) => r !== dir && target.startsWith(`${r}/`));
          if (other) offenders.push(`${file}: imports ${target}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('deploy/node is at most 150 lines outside cli/ (the rest is shared: deploy/shared, http-kit)', () => {
    const counts = files('deploy/node')
      .filter((f) => !f.startsWith('deploy/node/cli/'))
      .map((f) => [f, readFileSync(join(ROOT, f), 'utf8').trimEnd().split('\n').length] as const);
    expect(
      counts.reduce((sum, [, n]) => sum + n, 0),
      JSON.stringify(counts),
    ).toBeLessThanOrEqual(150);
  });

  it('the long-running roots and `quire serve`/`quire relay` live as processes through deploy/shared/process.ts', () => {
    const users = [
      'deploy/node/main.ts',
      'deploy/bun/main.ts',
      'deploy/deno/main.ts',
      'deploy/relay/main.ts',
      // `quire serve` and `quire relay` are each a `serviceCommand` (cli/common.ts).
      'deploy/node/cli/common.ts',
    ];
    for (const file of users) {
      expect(importsOf(file), file).toContain('deploy/shared/process.ts');
      // No root takes a signal or exits by itself: the one place is deploy/shared/process.ts.
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(
        /process\.(on|once)\(|addSignalListener|(process|Deno)\.exit\(/,
      );
    }
    // The CLI commands start what the roots start.
    expect(readFileSync(join(ROOT, 'deploy/node/cli/serve.ts'), 'utf8')).toMatch(
      /serviceCommand\([\s\S]*\bstartServerFromEnv\b/,
    );
    expect(readFileSync(join(ROOT, 'deploy/node/main.ts'), 'utf8')).toMatch(/startServerFromEnv\(/);
    expect(readFileSync(join(ROOT, 'deploy/node/cli/relay.ts'), 'utf8')).toMatch(
      /serviceCommand\([\s\S]*\bstartRelayFromEnv\b/,
    );
    expect(readFileSync(join(ROOT, 'deploy/relay/main.ts'), 'utf8')).toMatch(/startRelayFromEnv\(/);
  });
});

/** Runs `entry` under the import recorder until `ready` logs; returns the modules it resolved. */
async function modulesLoaded(entry: string, env: Record<string, string>, ready: string) {
  const tmp = await tempDir('quire-imports-');
  const log = join(tmp.dir, 'imports.txt');
  const hook = join(ROOT, 'tests/deploy/fixtures/record-imports.mjs');
  const p = runCommand(process.execPath, ['--import', hook, '--import', 'tsx', entry], {
    DATA_DIR: join(tmp.dir, 'data'),
    LOG_LEVEL: 'info',
    QUIRE_IMPORT_LOG: log,
    ...env,
  });
  try {
    await p.waitForLog((l) => l.msg === ready, 30_000);
    expect(await p.stop()).toBe(0);
    return (await readFile(log, 'utf8')).split('\n');
  } finally {
    await p.kill();
    await tmp.cleanup();
  }
}

describe('heavy clients load only when configured', () => {
  it('a note server with the embedded memory relay never loads ioredis', async () => {
    const urls = await modulesLoaded(
      'deploy/node/main.ts',
      { PAIRING_MODE: 'relay', RELAY_HOST: '127.0.0.1', RELAY_URL: '', REDIS_URL: '' },
      'relay connector online',
    );
    // The recorder works: the embedded relay's own modules are in the list.
    expect(urls.some((u) => u.endsWith('/relay/node/server.ts'))).toBe(true);
    expect(urls.filter((u) => u.includes('/node_modules/ioredis/'))).toEqual([]);
  }, 60_000);

  it('a relay configured with REDIS_URL does load it (the check above can fail)', async () => {
    const urls = await modulesLoaded(
      'deploy/relay/main.ts',
      {
        RELAY_HOST: '127.0.0.1',
        REDIS_URL: 'redis://127.0.0.1:6379',
        RELAY_QUEUE_PLAIN: '1',
        RELAY_REDIS_PREFIX: `quire-test-imports-${process.pid}-${Date.now()}:`,
      },
      'relay listening',
    );
    expect(urls.some((u) => u.includes('/node_modules/ioredis/'))).toBe(true);
  }, 60_000);
});
