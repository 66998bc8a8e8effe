import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.ts';

const run = promisify(execFile);

describe('the library surface', () => {
  it('builds to JavaScript and embeds through the package exports', async () => {
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
    });
    const script = `
      const { createNoteService } = await import('quire/core');
      const { memoryNoteStore } = await import('quire/adapters/store');
      const { createApp } = await import('quire/adapters/http');
      const notes = createNoteService({ store: memoryNoteStore(), clock: { now: Date.now } });
      await notes.load();
      await notes.create('hello.md', '# Hello\\nSee [[world]].');
      const app = createApp({ notes, version: 'x', clock: { now: Date.now }, logger: { debug() {}, info() {}, warn() {}, error() {} } });
      const res = await app.request('/api/v1/notes/hello.md');
      const { createQuireClient, QuireApiError } = await import('quire/client');
      const client = createQuireClient({ baseUrl: 'http://embedded', fetch: (url, init) => app.request(url, init) });
      const listed = await client.notes.list();
      const missing = await client.notes.get('nope.md').catch((e) => e instanceof QuireApiError && e.code);
      console.log(JSON.stringify({ links: (await res.json()).data.links, listed: listed.map((n) => n.path), missing }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({
      links: [{ target: 'world', path: null, kind: 'wikilink' }],
      listed: ['hello.md'],
      missing: 'NOTE_NOT_FOUND',
    });
  }, 60_000);
});
