import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import type { DomainError } from '../../../core/errors.ts';
import { analyzeNote } from '../../../core/notes/markdown/analyzer.ts';
import type { MarkdownAnalysis } from '../../../core/notes/markdown/types.ts';
import { createNoteService } from '../../../core/notes/service.ts';

describe('while the vault is being indexed', () => {
  it('notes calls answer NOT_READY with a Retry-After estimate, and status shows the progress', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`n${i}.md`] = `# N${i}\n[[n${i + 1}]]`;
    let now = 1_000_000;
    const gates: (() => void)[] = [];
    const analyze = (texts: string[]) =>
      new Promise<MarkdownAnalysis[]>((resolve) =>
        gates.push(() => resolve(texts.map((t) => analyzeNote(t)))),
      );
    const notes = createNoteService({
      store: memoryNoteStore({ files }),
      clock: { now: () => now },
      analyze,
    });
    const loading = notes.load();
    const next = async () => {
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1));
      now += 1000; // each batch of 128 notes takes a second on this clock
      gates.shift()!();
    };
    await next();
    while (notes.status().done < 128) await new Promise((r) => setTimeout(r, 1));
    expect(notes.status()).toMatchObject({ state: 'indexing', done: 128, total: 300 });
    let err: DomainError | null = null;
    try {
      notes.list();
    } catch (e) {
      err = e as DomainError;
    }
    expect(err?.code).toBe('NOT_READY');
    expect(err?.message).toMatch(/128\/300/);
    expect(err?.retryAfter).toBe(2); // 172 notes left at 128 notes/s
    await expect(notes.get('n1.md')).rejects.toMatchObject({ code: 'NOT_READY' });
    await next();
    await next();
    await loading;
    expect(notes.status()).toMatchObject({ state: 'ready', done: 300, total: 300 });
    expect(notes.list().items).toHaveLength(300);
  });
});
