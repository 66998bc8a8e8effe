/**
 * The fast index parse (core/notes/markdown/) against the remark reference (core/notes/markdown/remark.ts): the
 * same title, tags, links with their offsets, word count, warnings and search words, on generated
 * vaults, on every input of the existing markdown tests, on the property tests' adversarial notes,
 * and on random markdown. Intended differences are applied in differential-helpers.ts, one by one.
 */
import { existsSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { renderNote } from '../../../../bench/vault-note.ts';
import { planVault } from '../../../../bench/vault-plan.ts';
import { markdownText, noteText, SEED } from '../../../security/arbitraries.ts';
import { bothAnswers, indexMarkdown } from './differential-helpers.ts';

/** Asserts equality; returns whether there was a reference answer to compare with. */
function same(raw: string): boolean {
  const r = bothAnswers(raw);
  if (r) expect(r.actual, JSON.stringify(raw.slice(0, 400))).toEqual(r.expected);
  return r !== null;
}

/**
 * Every string literal of a test file: the inputs it gives the analyzer (and some harmless others).
 * The file may have moved into tests/core/notes/ (beside the note core's split into core/notes/):
 * both places are tried.
 */
function literalsOf(file: string): string[] {
  if (!existsSync(file)) file = file.replace('tests/core/', 'tests/core/notes/');
  if (!existsSync(file)) return [];
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    n.forEachChild(visit);
  };
  visit(src);
  return out;
}

describe('the fast index parse gives the reference answers', () => {
  it('on a generated vault (2 x 80 notes, two seeds)', () => {
    for (const seed of [42, 7]) {
      const plan = planVault(80, seed);
      for (let i = 0; i < plan.notes.length; i++) expect(same(renderNote(plan, i, seed))).toBe(true);
    }
  });

  it('on every input of the existing markdown tests', () => {
    const inputs = [
      ...literalsOf('tests/core/notes/markdown/remark.test.ts'),
      ...literalsOf('tests/core/notes/markdown/markdown.property.test.ts'),
      ...literalsOf('tests/core/notes/service.test.ts'),
      ...literalsOf('tests/core/notes/link-graph.test.ts'),
      ...literalsOf('tests/core/notes/markdown/obsidian.test.ts'),
      ...literalsOf('tests/core/notes/link-rewrite.test.ts'),
    ];
    expect(inputs.length).toBeGreaterThan(100);
    let compared = 0;
    for (const raw of inputs) if (same(raw)) compared++;
    expect(compared).toBeGreaterThan(inputs.length * 0.95);
  });

  it.each([
    [
      'nested lists',
      Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i % 40)}- item [[x${i}]]`).join('\n'),
    ],
    ['nested quotes', `${'> '.repeat(25)}deep [[q]] #t`],
    ['unclosed emphasis and brackets', '*a **a [ (]( _b '.repeat(200)],
    ['nested strong', `${'*a **a '.repeat(100)}b${' a** a*'.repeat(100)}`],
    ['a lazy paragraph', '> a [[l]]\nb\n'.repeat(200)],
    ['backtick runs', Array.from({ length: 60 }, (_, i) => `e${'`'.repeat(i)}`).join('')],
    ['broken YAML', '---\ntitle: [unclosed\ntags: {a: \n  - : :\n---\n# Body'],
    ['control characters', '\u0000\u0001\u001b\ud800\udfff\u202e[[\u0000]]#\u0007'.repeat(50)],
    ['an outline', '- item [[a]]\n  - sub\n\n'.repeat(200)],
    [
      'Obsidian comments, block ids and file embeds',
      '%% a [[x]] #t %% b ^id\n```mermaid\n%% c\n```\n![[p.png|9]] ![i](<a b.png>) [x][r]\n%%\n[r]: r.pdf\n%%\n\n[r]: r.pdf\n'.repeat(
        50,
      ),
    ],
    [
      'links everywhere',
      '[a](b.md) [[c|d]] ![e](f.md) [g][h] <i@j.k> `[[l]]` <!-- [[m]] --> \\[[n]]\n\n[h]: h.md\n',
    ],
  ])('on the adversarial note "%s"', (_name, raw) => {
    expect(same(raw)).toBe(true);
  });

  it("on the property tests' adversarial notes (fast-check)", () => {
    let compared = 0;
    fc.assert(
      fc.property(noteText, (raw) => {
        if (same(raw)) compared++;
      }),
      { seed: SEED, numRuns: 300 },
    );
    fc.assert(
      fc.property(markdownText, fc.integer({ min: 1, max: 20 }), (unit, times) => {
        if (same(unit.repeat(times))) compared++;
      }),
      { seed: SEED, numRuns: 80 },
    );
    expect(compared).toBeGreaterThan(350);
  });

  it('on random markdown biased towards what changes the index fields (fast-check)', () => {
    fc.assert(
      fc.property(indexMarkdown, (raw) => {
        expect(same(raw)).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
