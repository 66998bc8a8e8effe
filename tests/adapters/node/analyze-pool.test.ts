import { afterAll, describe, expect, it } from 'vitest';
import { analyzePool } from '../../../adapters/node/analyze-pool.ts';
import { fromWire, LINKS_PER_PIECE, PACK_TERMS_OVER } from '../../../adapters/node/analyze-wire.ts';
import { analyzeNote } from '../../../core/notes/markdown/analyzer.ts';
import { type PackedTerms, unpackTerms } from '../../../core/search/lexical/doc-terms.ts';
import { noteTerms } from '../../../core/search/lexical/note-terms.ts';
import { until } from '../../helpers/wait.ts';

/**
 * The analyze pool on real worker threads: a note with many links comes back from the thread
 * exactly as the in-process analysis gives it, although its links travel as JSON pieces read
 * one per event-loop turn (so a large note never stalls the event loop for long).
 */
describe('analyze pool', () => {
  let fellBack = 0;
  const pool = analyzePool({
    threads: 1,
    fallback: async (texts) => {
      fellBack += texts.length;
      return texts.map((t) => analyzeNote(t));
    },
  });
  afterAll(() => pool.close());

  it('returns a large note with many links exactly as analyzed in place, without holding the loop', async () => {
    const links = LINKS_PER_PIECE * 3 + 17;
    const text = `---\ntitle: Hub\n---\n# Hub\n${Array.from({ length: links }, (_, i) =>
      i % 3 ? `[[n${i % 50}]]` : `[[n${i % 7}#Part|alias ${i}]] and [md](folder/x${i % 5}.md)`,
    ).join(' ')}`;
    expect(text.length).toBeGreaterThan(128 * 1024);
    const [viaThread] = await pool.analyze([text]);
    expect(fellBack).toBe(0);
    const inPlace = analyzeNote(text);
    expect(inPlace.links.length).toBeGreaterThan(links);
    expect(viaThread).toEqual(inPlace);
  });

  it('reads link pieces one per turn of the event loop', async () => {
    const links = Array.from({ length: 3 * LINKS_PER_PIECE }, (_, i) => ({
      target: `n${i}`,
      kind: 'wikilink' as const,
      start: i * 8,
      end: i * 8 + 7,
    }));
    const a = analyzeNote('# x');
    const pieces = [0, 1, 2].map((k) =>
      JSON.stringify(links.slice(k * LINKS_PER_PIECE, (k + 1) * LINKS_PER_PIECE)),
    );
    let turns = 0;
    let done = false;
    const spin = () => {
      turns++;
      if (!done) setImmediate(spin);
    };
    setImmediate(spin);
    const back = await fromWire({ ...a, links: [], linkPieces: pieces });
    done = true;
    expect(back.links).toEqual(links);
    expect(back).not.toHaveProperty('linkPieces');
    // Other work ran between the pieces: at least one turn of the loop per piece.
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('sends the many terms of a large note packed, exactly the terms made in place', async () => {
    // Distinct words: every one a term, far more than PACK_TERMS_OVER.
    const words = Array.from({ length: 3 * PACK_TERMS_OVER }, (_, i) => `w${i.toString(36)}x`);
    const text = `---\ntitle: Many\ntags: [one, two]\n---\n# Heading here\n${words.join(' ')} #inline`;
    expect(text.length).toBeGreaterThan(128 * 1024);
    const [a] = await pool.analyze([text], ['folder/many.md']);
    const terms = a!.terms!;
    expect(Array.isArray(terms)).toBe(false);
    const packed = terms as PackedTerms;
    expect(packed.vals).toBeInstanceOf(Uint32Array);
    const inPlace = analyzeNote(text);
    expect(unpackTerms(packed)).toEqual(noteTerms('folder/many.md', inPlace, text));
    // The plain text stays on the thread; the rest of the analysis is as made in place.
    expect(a!.text).toBe('');
    expect({ ...a, terms: undefined, text: inPlace.text }).toEqual({ ...inPlace, terms: undefined });
    // A small note's terms still come as a plain list.
    const [small] = await pool.analyze([`# S\n${'z '.repeat(70_000)}`], ['s.md']);
    expect(Array.isArray(small!.terms)).toBe(true);
  });

  it('leaves small batches to the fallback and keeps the order of a batch', async () => {
    const texts = ['# A\n[[b]]', '# B\n#tag [[a|x]]'];
    const out = await pool.analyze(texts);
    expect(out).toEqual(texts.map((t) => analyzeNote(t)));
    expect(fellBack).toBe(2);
  });
});

describe('analyze pool after a load', () => {
  it('stops its threads when the load is done, not after the idle time, and starts them again', async () => {
    const pool = analyzePool({
      threads: 2,
      idleMs: 60_000,
      fallback: async (t) => t.map((x) => analyzeNote(x)),
    });
    try {
      const texts = Array.from({ length: 16 }, (_, i) => `# N${i}\n[[n${i + 1}]] #tag`);
      const paths = texts.map((_, i) => `n${i}.md`);
      const first = await pool.analyze(texts, paths);
      expect(first.map((a) => a.title)).toEqual(texts.map((_, i) => `N${i}`));
      expect(pool.running()).toBe(2);
      pool.analyze.loadDone?.();
      expect(pool.running()).toBe(0);
      // A load done while a batch is in flight: the threads stop once it is answered.
      const again = pool.analyze(texts, paths);
      pool.analyze.loadDone?.();
      expect(pool.running()).toBe(2);
      expect((await again).map((a) => a.title)).toEqual(first.map((a) => a.title));
      await until('the threads to stop', () => pool.running() === 0);
    } finally {
      await pool.close();
    }
  });
});
