import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { analyzeMarkdown } from '../../../core/notes/markdown/remark.ts';
import { createNoteService, type NoteEvent } from '../../../core/notes/service.ts';

const clock = { now: () => Date.parse('2025-01-01T00:00:00Z') };

function counting() {
  const calls = { n: 0 };
  const analyze = async (texts: string[]) => {
    calls.n += texts.length;
    return texts.map(analyzeMarkdown);
  };
  return { calls, analyze };
}

describe('note service', () => {
  it('warm restart over an unchanged vault parses nothing; a changed file is re-parsed alone', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++)
      files[`f${i % 5}/n${i}.md`] = `# Note ${i}\nlinks [[n${(i + 1) % 50}]] #t${i % 3}`;
    const store = memoryNoteStore({ files });
    const state = memoryStateStore();
    const first = counting();
    const s1 = createNoteService({ store, state, clock, analyze: first.analyze });
    await s1.load();
    expect(first.calls.n).toBe(50);
    expect(await s1.saveCache()).toBe(true);
    const listBefore = JSON.stringify(s1.list().items);

    const second = counting();
    const s2 = createNoteService({ store, state, clock, analyze: second.analyze });
    await s2.load();
    expect(second.calls.n).toBe(0);
    expect(JSON.stringify(s2.list().items)).toBe(listBefore);
    expect((await s2.search('note 7', 5)).map((h) => h.path)).toContain('f2/n7.md');

    await store.write('f0/n0.md', new TextEncoder().encode('# Changed\n[[n2]]'));
    const third = counting();
    const s3 = createNoteService({ store, state, clock, analyze: third.analyze });
    await s3.load();
    expect(third.calls.n).toBe(1);
    expect((await s3.get('f0/n0.md')).title).toBe('Changed');
    expect((await s3.get('f2/n2.md')).backlinks.map((b) => b.path)).toEqual(['f0/n0.md', 'f1/n1.md']);
  });

  it('ignores a corrupt cache and indexes from scratch', async () => {
    const store = memoryNoteStore({ files: { 'a.md': 'x' } });
    const state = memoryStateStore();
    await state.put('index-cache.json', '{not json');
    const c = counting();
    const s = createNoteService({ store, state, clock, analyze: c.analyze });
    await s.load();
    expect(c.calls.n).toBe(1);
    expect(s.list().items).toHaveLength(1);
  });

  it('answers NOT_READY before the vault is indexed', async () => {
    const s = createNoteService({ store: memoryNoteStore(), clock });
    expect(() => s.list()).toThrow(/still being indexed/);
  });

  it('gives exactly one winner per version to concurrent If-Match updates', async () => {
    const store = memoryNoteStore({ files: { 'n.md': 'v0' } });
    const s = createNoteService({ store, clock });
    await s.load();
    const base = (await s.get('n.md')).checksum;
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => s.update('n.md', { content: `writer ${i}` }, `"${base}"`)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(lost.every((r) => r.reason.code === 'PRECONDITION_FAILED')).toBe(true);
    const winner = (won[0] as PromiseFulfilledResult<{ content: string }>).value.content;
    expect((await s.get('n.md')).content).toBe(winner);
  });

  it('without If-Match, the final content is one of the written versions in full', async () => {
    const store = memoryNoteStore({ files: { 'n.md': 'v0' } });
    const s = createNoteService({ store, clock });
    await s.load();
    const versions = Array.from({ length: 30 }, (_, i) => `version ${i} `.repeat(50));
    await Promise.all(versions.map((content) => s.update('n.md', { content })));
    expect(versions).toContain((await s.get('n.md')).content);
  });

  it('reconcile applies changes made behind its back, and reports how many', async () => {
    const store = memoryNoteStore({ files: { 'a.md': '[[b]]', 'gone.md': 'x' } });
    const s = createNoteService({ store, clock });
    await s.load();
    expect(await s.reconcile()).toBe(0);
    await store.write('b.md', new TextEncoder().encode('# Bee'));
    await store.remove('gone.md');
    await store.write('a.md', new TextEncoder().encode('[[b]] changed'));
    const events: NoteEvent[] = [];
    s.subscribe((e) => events.push(e));
    expect(await s.reconcile()).toBe(3);
    expect(s.list().items.map((n) => n.path)).toEqual(['a.md', 'b.md']);
    expect((await s.get('b.md')).backlinks).toEqual([{ path: 'a.md', title: 'a' }]);
    expect(events.map((e) => `${e.type} ${e.path}`).sort()).toEqual([
      'created b.md',
      'deleted gone.md',
      'updated a.md',
    ]);
  });

  it('emits note events for writes', async () => {
    const s = createNoteService({ store: memoryNoteStore(), clock });
    await s.load();
    const events: NoteEvent[] = [];
    s.subscribe((e) => events.push(e));
    await s.create('a.md', 'x');
    await s.update('a.md', { content: 'y' });
    await s.move('a.md', 'b.md');
    await s.remove('b.md');
    expect(events.map((e) => e.type)).toEqual(['created', 'updated', 'moved', 'deleted']);
  });

  it('tells an outside change that a read finds before the watcher, which then finds nothing new', async () => {
    const store = memoryNoteStore({ files: { 'a.md': '# A' } });
    const s = createNoteService({ store, clock });
    await s.load();
    const events: NoteEvent[] = [];
    s.subscribe((e) => events.push(e));
    await store.write('b.md', new TextEncoder().encode('# Bee'));
    await store.write('a.md', new TextEncoder().encode('# A changed'));
    expect((await s.get('b.md')).title).toBe('Bee');
    expect((await s.get('a.md')).title).toBe('A changed');
    await store.remove('b.md');
    await expect(s.get('b.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    // What the watcher would report next: the index is current, so nothing more is told.
    expect(await s.reconcile()).toBe(0);
    expect(events.map((e) => `${e.type} ${e.path} ${e.external}`)).toEqual([
      'created b.md true',
      'updated a.md true',
      'deleted b.md true',
    ]);
  });

  it('keeps one unparseable note from breaking the index', async () => {
    const weird = `---\n${'- '.repeat(10000)}\n---\n${'['.repeat(5000)}${'*'.repeat(5000)}`;
    const s = createNoteService({
      store: memoryNoteStore({ files: { 'weird.md': weird, 'fine.md': 'ok' } }),
      clock,
    });
    await s.load();
    expect(s.list().items.map((n) => n.path)).toEqual(['fine.md', 'weird.md']);
    expect((await s.search('ok')).map((h) => h.path)).toEqual(['fine.md']);
  });
});
