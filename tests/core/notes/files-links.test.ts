/** The note service and the vault's other files: links and embeds to them resolve and stay true. */
import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { createNoteService } from '../../../core/notes/service.ts';

const empty = () => new ReadableStream<Uint8Array>({ start: (c) => c.close() });
const setup = async () => {
  const store = memoryNoteStore({
    files: {
      'a.md': 'See ![[pic.png]], [the pdf](docs/r.pdf) and ![x](img/pic.png).\n',
      'docs/b.md': '![](../img/pic.png) [[r.pdf#page=2|report]]\n',
    },
  });
  const files = memoryFileStore({ files: { 'img/pic.png': 'png', 'docs/r.pdf': 'pdf' } });
  const notes = createNoteService({ store, clock: { now: () => Date.now() }, files });
  await notes.load();
  const paths = async (note: string) =>
    Object.fromEntries((await notes.get(note)).links.map((l) => [l.target, [l.path, l.type]]));
  return { notes, files, store, paths };
};

describe('links to the vault files', () => {
  it('resolve at load, from the files listed by the file store', async () => {
    const { paths } = await setup();
    expect(await paths('a.md')).toEqual({
      'pic.png': ['img/pic.png', 'file'],
      'docs/r.pdf': ['docs/r.pdf', 'file'],
      'img/pic.png': ['img/pic.png', 'file'],
    });
    expect(await paths('docs/b.md')).toEqual({
      '../img/pic.png': ['img/pic.png', 'file'],
      'r.pdf': ['docs/r.pdf', 'file'],
    });
  });

  it('follow filesChanged, outside changes and the reconcile', async () => {
    const { notes, files, paths } = await setup();
    await files.remove('img/pic.png');
    await notes.filesChanged([], ['img/pic.png']);
    expect((await paths('a.md'))['pic.png']).toEqual([null, 'file']);
    expect(notes.indexedSummary('a.md')?.links.find((l) => l.target === 'pic.png')?.path).toBeNull();
    await files.write('pic.png', empty(), 10);
    await notes.applyExternalChanges([{ path: 'pic.png', kind: 'changed' }]);
    expect((await paths('a.md'))['pic.png']).toEqual(['pic.png', 'file']);
    // A file the server was never told about: the reconcile finds it (and the one gone).
    await files.write('img/pic.png', empty(), 10);
    await files.remove('pic.png');
    expect(await notes.reconcile()).toBe(2);
    expect((await paths('a.md'))['pic.png']).toEqual(['img/pic.png', 'file']);
  });

  it('moveFile with updateLinks rewrites every note pointing at the file; without, links re-resolve', async () => {
    const { notes, files, paths } = await setup();
    const { result, rewritten } = await notes.moveFile(
      'img/pic.png',
      'media/pic 2.png',
      () => files.move('img/pic.png', 'media/pic 2.png'),
      { updateLinks: true },
    );
    expect(result.path).toBe('media/pic 2.png');
    expect(rewritten.sort()).toEqual(['a.md', 'docs/b.md']);
    expect((await notes.get('a.md')).content).toBe(
      'See ![[pic 2.png]], [the pdf](docs/r.pdf) and ![x](media/pic%202.png).\n',
    );
    expect((await notes.get('docs/b.md')).content).toBe(
      '![](../media/pic%202.png) [[r.pdf#page=2|report]]\n',
    );
    expect(Object.values(await paths('a.md')).map(([p]) => p)).toEqual([
      'media/pic 2.png',
      'docs/r.pdf',
      'media/pic 2.png',
    ]);
    const plain = await notes.moveFile('docs/r.pdf', 'r.pdf', () => files.move('docs/r.pdf', 'r.pdf'));
    expect(plain.rewritten).toEqual([]);
    expect((await paths('docs/b.md'))['r.pdf']).toEqual(['r.pdf', 'file']);
    expect((await paths('a.md'))['docs/r.pdf']).toEqual([null, 'file']);
  });
});
