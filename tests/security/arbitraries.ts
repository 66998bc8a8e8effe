import fc from 'fast-check';

/** The seed of every property here: FUZZ_SEED reproduces a failing run (printed on failure). */
export const SEED = Number(process.env.FUZZ_SEED ?? 20_260_509);

/** Pieces that stress a markdown parser and the link/tag extraction around it. */
const MD_PIECES = [
  '*',
  '**',
  '_',
  '[',
  ']',
  '(',
  ')',
  '`',
  '```',
  '~~~',
  '<!--',
  '-->',
  '<div>',
  '>',
  '> ',
  '- ',
  '1. ',
  '  ',
  '    ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  '#',
  '# ',
  '#tag',
  '[[',
  ']]',
  '![[',
  '|',
  '[[a|b]]',
  '[[x#h]]',
  '[l](a.md)',
  '[l](../../etc/passwd)',
  '[r]: u.md\n',
  '---\n',
  'title: x\n',
  'tags: [a, b\n',
  ': :\n',
  '&amp;',
  '&#0;',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\u202e',
  '\ufeff',
  '\ue000',
  '\ue0011\ue001',
  '\ud800',
  '🙂',
  'é',
  'ﬁ',
  '中文',
  'word',
  ' ',
  '\\',
  '$',
  '=',
];

/** Markdown-ish text: random pieces from MD_PIECES and random strings. */
export const markdownText = fc
  .array(fc.oneof(fc.constantFrom(...MD_PIECES), fc.string({ unit: 'binary', maxLength: 8 })), {
    maxLength: 200,
  })
  .map((parts) => parts.join(''));

/** Frontmatter blocks, well formed or broken. */
export const frontmatterText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'title: Hello\n',
        'tags: [a, b]\n',
        'tags: a, b c\n',
        'tag: 12\n',
        'created: 2024-02-30\n',
        'created: not a date\n',
        'a: &x [1, 2]\nb: [*x, *x, *x]\n',
        'a: *missing\n',
        'key: "unterminated\n',
        '- just\n- a list\n',
        '? complex\n: key\n',
        '!!js/function "function(){}"\n',
        'x: !!binary AAAA\n',
        '{{{{{{{{\n',
        'title:\n  - nested\n',
        '\t\tbad indent\n',
      ),
      fc.string({ unit: 'binary', maxLength: 20 }).map((s) => `${s}\n`),
    ),
    { maxLength: 8 },
  )
  .map((lines) => `---\n${lines.join('')}---\n`);

/** A whole note: maybe frontmatter, then markdown-ish text or raw random characters. */
export const noteText = fc
  .tuple(
    fc.option(frontmatterText, { nil: '' }),
    fc.oneof(markdownText, fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 300 })),
  )
  .map(([fm, body]) => fm + body);

const SEGMENTS = [
  '..',
  '.',
  '',
  'a',
  'notes',
  '%2e%2e',
  '%2f',
  '..%2f..',
  '\\..\\',
  'C:',
  'c:\\windows',
  '~',
  '.hidden',
  '.obsidian',
  'x'.repeat(300),
  'é',
  '\u0000',
  '\u001f',
  '\u202e',
  'con',
  'a b',
  '*',
  '?',
  'link',
  '🙂',
];

/** Paths built from hostile segments, plus random strings; most end in `.md`. */
export const hostilePath = fc.oneof(
  fc
    .tuple(
      fc.boolean(),
      fc.array(fc.oneof(fc.constantFrom(...SEGMENTS), fc.string({ maxLength: 6 })), {
        minLength: 1,
        maxLength: 6,
      }),
      fc.constantFrom('.md', '.MD', '', '.md/', '.md\u0000.txt', '/.md'),
    )
    .map(([abs, segs, ext]) => `${abs ? '/' : ''}${segs.join('/')}${ext}`),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `${s}.md`),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
