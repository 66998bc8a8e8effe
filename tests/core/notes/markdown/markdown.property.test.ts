import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../../adapters/store/memory-note-store.ts';
import { analyzeNote } from '../../../../core/notes/markdown/analyzer.ts';
import { MAX_PARSE_CHARS, parseComplexity } from '../../../../core/notes/markdown/guard.ts';
import { linearConsume, originalConsume } from '../../../../core/notes/markdown/micromark-linear.ts';
import { analyzeMarkdown } from '../../../../core/notes/markdown/remark.ts';
import type { MarkdownAnalysis } from '../../../../core/notes/markdown/types.ts';
import { createNoteService } from '../../../../core/notes/service.ts';
import { markdownText, noteText, SEED } from '../../../security/arbitraries.ts';

/** The shape every analysis must have, whatever the input. */
function checkShape(raw: string, a: MarkdownAnalysis): void {
  expect(a.title === null || typeof a.title === 'string').toBe(true);
  expect(Number.isInteger(a.wordCount) && a.wordCount >= 0).toBe(true);
  expect(a.bodyStart).toBeGreaterThanOrEqual(0);
  expect(a.bodyStart).toBeLessThanOrEqual(raw.length);
  const lower = a.tags.map((t) => t.toLowerCase());
  expect(new Set(lower).size).toBe(lower.length);
  let last = -1;
  const bad = a.links.filter((l) => {
    const wrong =
      l.start < last ||
      l.end < l.start ||
      l.end > raw.length ||
      (l.kind !== 'markdown' && !/^!?\[\[[\s\S]*\]\]$/.test(raw.slice(l.start, l.end)));
    last = l.start;
    return wrong;
  });
  expect(bad).toEqual([]);
  // The analysis crosses threads and goes into the index cache: it must survive JSON.
  expect(() => JSON.stringify(a)).not.toThrow();
}

const analyzeChecked = (raw: string) => {
  const a = analyzeMarkdown(raw);
  checkShape(raw, a);
  return a;
};

describe('the markdown indexer never throws (property)', () => {
  it('random and adversarial notes give a well-formed analysis', () => {
    fc.assert(
      fc.property(noteText, (raw) => {
        analyzeChecked(raw);
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  it('markdown-ish text repeated into long blocks stays well-formed', () => {
    fc.assert(
      fc.property(markdownText, fc.integer({ min: 1, max: 60 }), (unit, times) => {
        analyzeChecked(unit.repeat(times));
      }),
      { seed: SEED, numRuns: 150 },
    );
  });

  it.each([
    [
      'deeply nested lists',
      Array.from({ length: 3000 }, (_, i) => `${'  '.repeat(i % 200)}- item`).join('\n'),
    ],
    ['deeply nested block quotes', `${'> '.repeat(20_000)}deep`],
    ['one huge line', `# Big\n${'word [[link]] #tag '.repeat(150_000)}`],
    ['unclosed emphasis and brackets', '*a **a [ (]( _b '.repeat(20_000)],
    ['nested strong', `${'*a **a '.repeat(5_000)}b${' a** a*'.repeat(5_000)}`],
    ['a lazy paragraph of 20,000 lines', '> a\nb\n'.repeat(10_000)],
    ['backtick runs', Array.from({ length: 1_000 }, (_, i) => `e${'`'.repeat(i)}`).join('')],
    ['broken YAML', '---\ntitle: [unclosed\ntags: {a: \n  - : :\n---\n# Body'],
    [
      'a YAML alias bomb',
      `---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [${'*a,'.repeat(9)}*a]\nc: [${'*b,'.repeat(99)}*b]\n---\n`,
    ],
    ['frontmatter larger than the cap', `---\n${'k: v\n'.repeat(20_000)}---\nbody`],
    [
      'control characters and lone surrogates',
      '\u0000\u0001\u001b\ud800\udfff\u202e[[\u0000]]#\u0007'.repeat(500),
    ],
  ])('%s', (_name, raw) => {
    analyzeChecked(raw);
  });

  it('a 10 MB note is indexed (as plain text, with a warning) and served by the note service', async () => {
    const unit =
      '## Part\n\nProse with [[Target Note]] and [a link](other.md), #tagged, `code [[not]]`.\n\n- one\n  - two\n\n';
    const raw = `---\ntitle: Huge\ntags: [big]\n---\n${unit.repeat(Math.ceil((10 * 1024 * 1024) / unit.length))}`;
    expect(raw.length).toBeGreaterThan(10 * 1024 * 1024);
    const a = analyzeChecked(raw);
    expect(a.title).toBe('Huge');
    expect(a.tags).toEqual(['big', 'tagged']);
    expect(a.warnings.join(' ')).toMatch(/plain text: it is larger than/);
    expect(a.links[0]).toMatchObject({ target: 'Target Note', kind: 'wikilink' });
    expect(a.links.some((l) => l.target === 'not')).toBe(false);
    expect(a.links.some((l) => l.target === 'other.md' && l.kind === 'markdown')).toBe(true);

    const notes = createNoteService({ store: memoryNoteStore(), clock: { now: Date.now } });
    await notes.load();
    await notes.create('huge.md', raw);
    const got = await notes.get('huge.md');
    expect(got.title).toBe('Huge');
    // The service indexes with the linear parse (core/notes/markdown/analyzer.ts), which needs no
    // size budget: its warnings are its own, whatever the reference says of so large a note.
    expect(got.warnings ?? []).toEqual(analyzeNote(raw).warnings);
    expect(got.links[0]).toMatchObject({ target: 'Target Note', kind: 'wikilink' });
    expect((await notes.search('tagged')).map((h) => h.path)).toEqual(['huge.md']);
  }, 60_000);

  it('a note just under the parse budget is still parsed as markdown', () => {
    const head = 'Some prose, `code [[not a link]]` and [[real]].\n\n';
    const filler = 'Plain words of an ordinary paragraph, nothing more to see here.\n\n';
    // The head's 10 markup characters cost 80 more: leave that room.
    const raw = head + filler.repeat(Math.floor((MAX_PARSE_CHARS - head.length - 100) / filler.length));
    expect(raw.length).toBeGreaterThan(MAX_PARSE_CHARS - filler.length - 100);
    expect(parseComplexity(raw)).toBeNull();
    const a = analyzeChecked(raw);
    expect(a.warnings).toEqual([]);
    expect(a.links.map((l) => l.target)).toEqual(['real']);
    expect(parseComplexity(raw + filler.repeat(3))).toMatch(/budget/);
  }, 60_000);
});

describe('the linear edit-map consume', () => {
  it('gives exactly the events of the upstream one (property)', () => {
    const edits = fc.array(
      fc.tuple(fc.nat(60), fc.nat(5), fc.array(fc.integer({ min: 1000, max: 2000 }), { maxLength: 4 })),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(fc.array(fc.nat(999), { maxLength: 60 }), edits, (events, changes) => {
        const run = (consume: (this: unknown, e: unknown[]) => void) => {
          const map = new Map<number, [number, number, unknown[]]>();
          const list: [number, number, unknown[]][] = [];
          for (const [at0, remove, add] of changes) {
            const at = Math.min(at0, events.length);
            const existing = map.get(at);
            if (existing) {
              existing[1] += remove;
              existing[2].push(...add);
              continue;
            }
            const change: [number, number, unknown[]] = [at, remove, [...add]];
            list.push(change);
            map.set(at, change);
          }
          const copy: unknown[] = [...events];
          consume.call({ map: list, index: map }, copy);
          return copy;
        };
        expect(run(linearConsume as never)).toEqual(run(originalConsume));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('parses an outline of 2,400 items with sub-items as markdown (quadratic before the fix)', () => {
    const a = analyzeChecked('- item [[a]]\n  - sub\n\n'.repeat(1_200));
    expect(a.warnings).toEqual([]);
    expect(a.links).toHaveLength(1_200);
  }, 60_000);
});
