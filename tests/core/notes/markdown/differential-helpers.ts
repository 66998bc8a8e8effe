/** What "the same answer" means between the fast index parse and the remark reference. */
import fc from 'fast-check';
import { parseWikiInner, WIKILINK, WORD } from '../../../../core/notes/markdown/parts.ts';
import { analyzeMarkdown } from '../../../../core/notes/markdown/remark.ts';
import { analyzeMarkdownFast } from '../../../../core/notes/markdown/scan.ts';
import type { MarkdownAnalysis } from '../../../../core/notes/markdown/types.ts';
import { tokenize } from '../../../../core/search/lexical/text.ts';

/**
 * The reference's answer with the documented intended differences applied (docs/reference/markdown-index.md):
 * 1. a wiki-link written with `\|` (Obsidian's alias bar inside tables) has its backslash dropped;
 * 2. in a note starting with a byte order mark, markdown links' offsets count the mark (the
 *    reference's are one short, so link rewriting would cut the wrong characters);
 * 3. a wiki-link inside a code span of the title heading reads as written (the reference shows its
 *    internal placeholder `\uE000n\uE001`).
 */
function expectedFromReference(raw: string, a: MarkdownAnalysis): MarkdownAnalysis {
  const bom = raw.charCodeAt(0) === 0xfeff ? 1 : 0;
  const links = a.links.map((l) => {
    if (l.kind === 'markdown') return bom ? { ...l, start: l.start + bom, end: l.end + bom } : l;
    const written = raw.slice(l.start, l.end);
    const inner = written.slice(written.indexOf('[[') + 2, -2);
    const bar = inner.indexOf('|');
    if (bar <= 0 || inner[bar - 1] !== '\\') return l;
    const fixed = inner.slice(0, bar - 1) + inner.slice(bar);
    return parseWikiInner(fixed, l.kind === 'embed', l.start, l.end).occ;
  });
  const written = [...raw.slice(a.bodyStart).matchAll(WIKILINK)].map((m) => m[0]);
  const title = a.title?.replace(/\uE000(\d+)\uE001/g, (_m, i: string) => written[Number(i)] ?? '') ?? null;
  return { ...a, links, title };
}

/** The comparable parts: every field; the search text as its sequence of words and of search terms. */
function comparable(a: MarkdownAnalysis) {
  return {
    frontmatter: a.frontmatter,
    bodyStart: a.bodyStart,
    title: a.title,
    tags: a.tags,
    links: a.links.map((l) => ({ ...l })),
    wordCount: a.wordCount,
    created: a.created,
    warnings: a.warnings,
    words: a.text.match(WORD) ?? [],
    searchTerms: tokenize(a.text),
  };
}

/** Whether the reference read this note as plain text (too large or convoluted for remark). */
export const referenceFellBack = (a: MarkdownAnalysis): boolean =>
  a.warnings.some((w) => /indexed as plain text|could not be parsed/.test(w));

/**
 * Both answers for `raw`, in comparable form: `actual` from the fast parse, `expected` from the
 * reference with the intended differences applied; null when the reference itself gave up on the
 * note and read it as plain text (nothing to compare against).
 */
export function bothAnswers(raw: string) {
  const ref = analyzeMarkdown(raw);
  if (referenceFellBack(ref)) return null;
  return {
    actual: comparable(analyzeMarkdownFast(raw)),
    expected: comparable(expectedFromReference(raw, ref)),
  };
}

const word = fc.constantFrom(
  'alpha',
  'beta',
  'Gamma',
  'déjà',
  '中文',
  'x1',
  "it's",
  'a-b',
  'snake_case',
  'C#',
);
const inlinePiece = fc.oneof(
  { weight: 6, arbitrary: word },
  fc.constantFrom(
    ' ',
    ' ',
    ' ',
    '  ',
    '\t',
    '*',
    '**',
    '_',
    '__',
    '***',
    '`',
    '``',
    '```',
    '\\',
    '\\|',
    '\\*',
    '\\[',
    '\\#',
    '&amp;',
    '&#35;',
    '&#x23;',
    '&copy;',
    '&nosuch;',
    '<!--',
    '-->',
    '<b>',
    '</b>',
    '<a href="x.md">',
    '<http://e.example/#x>',
    '<me@e.example>',
    '$',
    '$$',
    '%%',
    '[',
    ']',
    '(',
    ')',
    '![',
    '](',
    '[[',
    ']]',
    '|',
    '#',
    '#tag',
    '#x/y',
    '#12',
    '[[Note]]',
    '[[Note|alias]]',
    '[[Note\\|alias]]',
    '[[Dir/Note#Head|al]]',
    '![[pic.png]]',
    '[t](n.md)',
    '[t](<a b.md> "t")',
    '[t](x.md#h)',
    '[t](https://e.example)',
    '![i](p.png)',
    '![i][r]',
    '[t](a%20b.pdf)',
    '![[a.pdf#page=2]]',
    '[[Note#^blk]]',
    ' ^blk-1',
    '^id',
    '%%c [[Hid]] #hid%%',
    '[t][r]',
    '[r][]',
    '[r]',
    '[R ]',
    '`[[code]]`',
    '``a`b``',
    '** #tag**',
    '_#t_',
    '\n',
    '\n',
    '  \n',
  ),
);
const inline = fc.array(inlinePiece, { maxLength: 14 }).map((p) => p.join(''));
const prefix = fc.constantFrom(
  '',
  '',
  '',
  '# ',
  '## ',
  '> ',
  '- ',
  '* ',
  '1. ',
  '2) ',
  '    ',
  '   ',
  '\t',
  '> - ',
  '- > ',
  '  - ',
);
const line = fc.tuple(prefix, inline).map(([p, t]) => p + t);
const block = fc.oneof(
  { weight: 8, arbitrary: fc.array(line, { minLength: 1, maxLength: 4 }).map((l) => l.join('\n')) },
  fc
    .tuple(fc.constantFrom('```', '````', '~~~', '```js'), inline)
    .map(([f, t]) => `${f}\n${t}\n${f.replace('js', '')}`),
  fc.tuple(fc.constantFrom('```', '~~~'), inline).map(([f, t]) => `${f}\n${t}`),
  inline.map((t) => `<div>\n${t}\n</div>`),
  inline.map((t) => `<!--\n${t}\n-->`),
  inline.map((t) => `$$\n${t}\n$$`),
  inline.map((t) => `%%\n${t}\n%%`),
  fc.tuple(inline, inline).map(([a, b]) => `| ${a} | ${b} |\n| --- | --- |\n| [[T\\|x]] | ${b} |`),
  fc.tuple(inline, fc.constantFrom('===', '---', '- - -', '***')).map(([t, u]) => `${t}\n${u}`),
  fc.constantFrom(
    '[r]: r.md',
    '[R]: <s p.md> "t"',
    '[r]: https://e.example',
    '[x]:\n  y.md\n  "title"',
    '[r]:',
  ),
);
const frontmatter = fc.constantFrom(
  '',
  '',
  '---\ntitle: T\ntags: [a, b]\n---\n',
  '---\ntags: x y\ncreated: 2024-01-02\n---\n',
  '---\n---\n',
  '---\r\ntitle: crlf\r\n---\r\n',
  '---\ntitle: [broken\n---\n',
);

/** Random markdown biased towards what changes the index fields. */
export const indexMarkdown = fc
  .tuple(
    frontmatter,
    fc.array(block, { maxLength: 8 }),
    fc.array(fc.constantFrom('\n', '\n\n', '\n\n\n'), { minLength: 8, maxLength: 8 }),
  )
  .map(([fm, blocks, seps]) => fm + blocks.map((b, i) => b + seps[i]).join(''));
