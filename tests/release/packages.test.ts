import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackages } from '../../deploy/shared/release/packages.ts';
import { liveServer } from '../helpers/live-server.ts';

const run = promisify(execFile);

/** Total bytes of the files under `dir`. */
function duBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? duBytes(p) : statSync(p).size;
  }
  return n;
}

/** The installed packages under node_modules (scoped ones counted one by one). */
function installed(dir: string): string[] {
  const nm = join(dir, 'node_modules');
  return readdirSync(nm)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(nm, n)).map((m) => `${n}/${m}`) : [n]));
}

/** An empty folder with the tarball installed from the local file (registry only for what the cache lacks). */
async function installInEmpty(tgz: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'quire-pack-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tgz], {
    cwd: dir,
  });
  return dir;
}

/** `npm pack` of each lean package, installed into an empty folder and imported there. */
describe('the lean packages', () => {
  let tarballs: Record<string, string> = {};
  const dirs: string[] = [];
  beforeAll(async () => {
    tarballs = await buildPackages();
  }, 240_000);
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('@quire-notes/client: one package under 1 MB, talks to a running server', async () => {
    const dir = await installInEmpty(tarballs.client!);
    dirs.push(dir);
    expect(installed(dir)).toEqual(['@quire-notes/client']);
    expect(duBytes(join(dir, 'node_modules'))).toBeLessThan(1024 * 1024);
    const server = await liveServer({ PAIRING_MODE: 'open-port' });
    try {
      const script = `
        import { createQuireClient, QuireApiError } from '@quire-notes/client';
        const quire = createQuireClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });
        await quire.notes.create({ path: 'from-client.md', content: '# From the client' });
        const note = await quire.notes.get('from-client.md');
        const missing = await quire.notes.get('nope.md').catch((e) => e instanceof QuireApiError && e.code);
        console.log(JSON.stringify({ title: note.title, missing }));
      `;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: dir,
        env: { PATH: process.env.PATH, URL: server.url, KEY: server.firstKey },
      });
      expect(JSON.parse(stdout)).toEqual({ title: 'From the client', missing: 'NOTE_NOT_FOUND' });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('@quire-notes/core: installs with only what core/ imports, runs on the memory store', async () => {
    const dir = await installInEmpty(tarballs.core!);
    dirs.push(dir);
    const names = installed(dir);
    for (const heavy of ['ai', 'ioredis', 'hono', '@modelcontextprotocol/sdk', 'typescript', 'tsx'])
      expect(names).not.toContain(heavy);
    expect(duBytes(join(dir, 'node_modules'))).toBeLessThan(25 * 1024 * 1024);
    const script = `
      import { createCore } from '@quire-notes/core';
      import { memoryNoteStore } from '@quire-notes/core/memory';
      const core = createCore({ store: memoryNoteStore(), clock: { now: Date.now } });
      await core.load();
      await core.notes.create('a.md', '# A\\nSee [[b]].');
      await core.notes.create('b.md', '# B');
      const b = await core.notes.get('b.md');
      console.log(JSON.stringify({ backlinks: b.backlinks.map((l) => l.path), hits: (await core.notes.search('see')).map((h) => h.path) }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { PATH: process.env.PATH },
    });
    expect(JSON.parse(stdout)).toEqual({ backlinks: ['a.md'], hits: ['a.md'] });

    // Its types: a consumer's strict TypeScript sees the real note type (a wrong one would fail).
    writeFileSync(
      join(dir, 'use.ts'),
      `import { createCore } from '@quire-notes/core';
import { memoryNoteStore } from '@quire-notes/core/memory';
const core = createCore({ store: memoryNoteStore(), clock: { now: Date.now } });
const title: string = (await core.notes.get('a.md')).title;
// @ts-expect-error the title is a string
const wrong: number = (await core.notes.get('a.md')).title;
export { title, wrong };
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      '{"compilerOptions":{"module":"NodeNext","moduleResolution":"NodeNext","target":"ES2022","strict":true,"noEmit":true,"skipLibCheck":true,"types":[]},"files":["use.ts"]}',
    );
    const tsc = join(import.meta.dirname, '../../node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', '.'], { cwd: dir });
  }, 120_000);
});
