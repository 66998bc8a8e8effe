import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runTs } from '../helpers/child.ts';

const run = promisify(execFile);
const kills: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const k of kills.splice(0)) await k();
});

// The examples import 'quire/core' etc.; tsx maps those to the sources (tsconfig paths), a user's
// project to the built files through the package exports, which the first case checks.
describe('the library surface', () => {
  it('builds to JavaScript and embeds through the package exports', async () => {
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
    });
    const script = `
      const { createCore } = await import('quire/core');
      const { memoryNoteStore } = await import('quire/adapters/store');
      const { createApp } = await import('quire/adapters/http');
      const core = createCore({ store: memoryNoteStore(), clock: { now: Date.now } });
      await core.load();
      await core.notes.create('hello.md', '# Hello\\nSee [[world]].');
      const app = createApp({ notes: core.notes, version: 'x', clock: { now: Date.now }, logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const res = await app.request('/api/v1/notes/hello.md');
      const { createQuireClient, QuireApiError } = await import('quire/client');
      const client = createQuireClient({ baseUrl: 'http://embedded', fetch: (url, init) => app.request(url, init) });
      const listed = await client.notes.list();
      const missing = await client.notes.get('nope.md').catch((e) => e instanceof QuireApiError && e.code);
      console.log(JSON.stringify({ links: (await res.json()).data.links, listed: listed.map((n) => n.path), missing }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({
      links: [{ target: 'world', path: null, kind: 'wikilink', type: 'note' }],
      listed: ['hello.md'],
      missing: 'NOTE_NOT_FOUND',
    });
  }, 180_000);

  it('README example: the core in a plain script', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/embed-script.ts'], {
      cwd: ROOT,
    });
    expect(stdout.split('\n')).toEqual([
      'backlinks of soil: garden/compost.md',
      'search "compost": garden/compost.md',
      'agent: garden/compost.md',
      '',
    ]);
  });

  it('README example: the core inside another Hono app, over a socket', async () => {
    const p = runTs('examples/embed-hono.ts', { PORT: '0' });
    kills.push(p.kill);
    const deadline = Date.now() + 15_000;
    let url = '';
    while (!url) {
      url = p.out.stdout.match(/listening on (http:\/\/\S+)/)?.[1] ?? '';
      if (p.child.exitCode !== null || Date.now() > deadline) throw new Error(`no start: ${p.out.stderr}`);
      if (!url) await new Promise((r) => setTimeout(r, 25));
    }
    expect(await (await fetch(`${url}/titles`)).json()).toEqual(['Hello', 'World']);
    const note = (await (await fetch(`${url}/api/v1/notes/world.md`)).json()) as any;
    expect(note.data.backlinks).toEqual([{ path: 'hello.md', title: 'Hello' }]);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
