/**
 * The fast index parse does work linear in the note's length for every shape of input: doubling an
 * adversarial note at most about doubles the work, counted (not timed) as the string operations the
 * reader performs: characters read one by one, characters copied by slices, characters searched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeMarkdownFast } from '../../../../core/notes/markdown/scan.ts';

let work = 0;
const proto = String.prototype;
const original = { charCodeAt: proto.charCodeAt, slice: proto.slice, indexOf: proto.indexOf };

beforeAll(() => {
  proto.charCodeAt = function (this: string, i: number) {
    work++;
    return original.charCodeAt.call(this, i);
  };
  proto.slice = function (this: string, a?: number, b?: number) {
    const out = original.slice.call(this, a, b);
    work += out.length + 1;
    return out;
  };
  proto.indexOf = function (this: string, s: string, from?: number) {
    const at = original.indexOf.call(this, s, from);
    work += (at < 0 ? this.length : at) - (from ?? 0) + 1;
    return at;
  };
});
afterAll(() => Object.assign(proto, original));

const workFor = (raw: string): number => {
  work = 0;
  analyzeMarkdownFast(raw);
  return work;
};

/** Shapes that make a naive reader rescan: unclosed constructs repeated, deep nesting, long runs. */
const SHAPES: [string, (n: number) => string][] = [
  ['open brackets', (n) => '['.repeat(n)],
  ['brackets then links', (n) => `${'['.repeat(n)}${'[a](b.md) '.repeat(n / 8)}`],
  ['unclosed link destinations', (n) => '[a](x'.repeat(n / 5)],
  ['unclosed titles', (n) => '[a](x "'.repeat(n / 7)],
  ['unclosed emphasis and brackets', (n) => '*a **a [ (]( _b '.repeat(n / 16)],
  [
    'backtick runs of growing length',
    (n) => Array.from({ length: Math.sqrt(n) | 0 }, (_, i) => `e${'`'.repeat(i)}`).join(''),
  ],
  ['unclosed code spans', (n) => '`a ``b '.repeat(n / 7)],
  ['unclosed HTML comments', (n) => '<!-- a '.repeat(n / 7)],
  ['unclosed attribute values', (n) => '<a b=\'<a b="'.repeat(n / 12)],
  ['long attribute lists', (n) => `${"<a b='".repeat(n / 12)}'${' c'.repeat(n / 4)}`],
  ['references', (n) => `${'[x][y] [z] '.repeat(n / 11)}\n\n[y]: u.md\n`],
  ['nested quotes', (n) => `${'> '.repeat(n / 2)}x`],
  [
    'nested lists then blank lines',
    (n) => `${Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n')}${'\n'.repeat(n)}`,
  ],
  ['lazy lines', (n) => '> a\nb\n'.repeat(n / 6)],
  ['wiki-links', (n) => '[[a|b]] '.repeat(n / 8)],
  ['Obsidian comments and block ids', (n) => 'a %%b%% `%%` ^c\n'.repeat(n / 16)],
  ['backtick runs before a comment', (n) => `${'` ``'.repeat(n / 8)}%%`],
  ['comments on one line', (n) => '%%a%% b '.repeat(n / 8)],
  ['unclosed code spans across lines with comments', (n) => '`a %%\nb%% '.repeat(n / 10)],
  ['entities', (n) => '&#x1F600; &amp &nosuchentity; '.repeat(n / 30)],
  ['unclosed HTML blocks', (n) => '<div>\n[[x]] text\n'.repeat(n / 18)],
  ['fences', (n) => '```\n[[x]]\n'.repeat(n / 10)],
];

describe('the fast index parse is linear in the note (counted work)', () => {
  it.each(SHAPES)('%s: twice the note, at most about twice the work', (_name, make) => {
    const n = 20_000;
    const small = make(n);
    const large = make(2 * n);
    expect(large.length).toBeGreaterThan(small.length * 1.8);
    const ratio = workFor(large) / workFor(small);
    const perChar = workFor(large) / large.length;
    expect(ratio, `work ratio ${ratio.toFixed(2)}`).toBeLessThan(2.4);
    expect(perChar, `work per character ${perChar.toFixed(1)}`).toBeLessThan(200);
  });

  it('reads a 2 MB adversarial note in bounded time (a sanity check, generous margin)', () => {
    const raw = SHAPES.map(([, make]) => make(100_000)).join('\n\n');
    expect(raw.length).toBeGreaterThan(1_500_000);
    const t0 = performance.now();
    const a = analyzeMarkdownFast(raw);
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(a.links.length).toBeGreaterThan(0);
  });
});
