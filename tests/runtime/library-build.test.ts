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
      console.log(JSON.stringify((await res.json()).data.links));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual([{ target: 'world', path: null, kind: 'wikilink' }]);
  }, 60_000);
});
