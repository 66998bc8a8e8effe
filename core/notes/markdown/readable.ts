/**
 * Markdown as a person reads it: the words of a note without its syntax, for search snippets and
 * the passages the agent quotes. Obsidian's and SilverBullet's constructs read as they show in
 * those apps (`[[Note|alias]]` as "alias", `[[#Heading]]` as "Heading", a callout by its title;
 * embeds, icons, comments, block ids and templates as nothing). Line by line with patterns that
 * never backtrack across lines, so the cost stays linear in the text.
 */

const FENCE = /^\s*(`{3,}|~{3,})/;
const COMMENTS = /%%[\s\S]*?%%|<!--[\s\S]*?-->/g;
const FRONTMATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;
const QUOTE = /^\s*(?:>\s?)+/;
const CALLOUT = /^\[!([\w-]+)\][+-]?\s*(.*)$/;
const HEADING = /^\s*#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^\s*(?:[-*_]\s*){3,}$/;
const TABLE_SEP = /^[\s|:-]+$/;
const LIST = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/;
const TASK = /^\[[ xX/-]\]\s+/;
const FOOTNOTE_DEF = /^\s*\[\^[^\]\n]+\]:\s*/;
const BLOCK_ID = /\s+\^[A-Za-z0-9-]+\s*$/;
const CODE_SPAN = /(`+)([^`\n]+?)\1/g;

const ENTITIES: Record<string, string> = {
  nbsp: ' ',
  amp: '&',
  quot: '"',
  apos: "'",
  '#39': "'",
  lt: '<',
  gt: '>',
};

/** What a wiki-link shows: its alias, else the note (and heading) it names. */
function wikiText(inner: string): string {
  const bar = inner.indexOf('|');
  if (bar >= 0) return inner.slice(bar + 1).trim();
  const hash = inner.indexOf('#');
  const note = (hash >= 0 ? inner.slice(0, hash) : inner).replace(/\.md$/i, '').trim();
  const sub = hash >= 0 ? inner.slice(hash + 1).trim() : '';
  const heading = sub.startsWith('^') ? '' : sub.replace(/#/g, ' › ');
  if (!note) return heading;
  return heading ? `${note} › ${heading}` : note;
}

/** What an embed shows: the file or note it names; nothing for an icon (`![[x.svg#icon]]`). */
function embedText(inner: string): string {
  const [target = '', shown] = inner.split('|', 2);
  if (/#icon$/i.test(target.trim())) return '';
  // After the bar an image takes its size (`|100`, `|100x80`); anything else is shown as written.
  return shown !== undefined && !/^\s*\d+(?:x\d+)?\s*$/.test(shown) ? shown.trim() : wikiText(target);
}

/**
 * One stretch of a line outside code spans, its syntax taken out. Backslash escapes stay when
 * `keepEscapes` (text for a markdown renderer, where `\[\[` shows as the brackets it escapes).
 */
function inlineText(s: string, keepEscapes: boolean): string {
  // Each pattern only where its first character is: most lines hold none of them.
  let t = s;
  if (t.includes('[')) {
    t = t
      // An embed reads as what it embeds (an icon as nothing), an image as its description.
      .replace(/!\[\[([^\]\n]*)\]\]/g, (_, inner: string) => embedText(inner))
      .replace(/!\[([^\]\n]*)\]\([^)\n]*\)/g, (_, alt: string) => (/^\d+(?:x\d+)?$/.test(alt) ? '' : alt))
      .replace(/\[\[([^\]\n]*)\]\]/g, (_, inner: string) => wikiText(inner))
      .replace(/\[\^[^\]\n]+\]/g, '')
      .replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
      .replace(/\[([^\]\n]+)\]\[[^\]\n]*\]/g, '$1');
  }
  if (t.includes('<')) {
    t = t
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
      .replace(/<br\s*\/?>/gi, ' ')
      .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?\/?>/g, '');
  }
  // Emphasis, and backticks that open no code span, read as nothing.
  if (/[*~=`]/.test(t)) t = t.replace(/\*+|~~|==|`+/g, '');
  if (t.includes('_')) t = t.replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, '');
  if (t.includes('&'))
    t = t.replace(/&(nbsp|amp|quot|apos|#39|lt|gt);/g, (_, e: string) => ENTITIES[e] ?? '');
  if (t.includes('\\')) t = t.replace(/\\([!-/:-@[-`{-~])/g, (m, c: string) => (keepEscapes ? m : c));
  return t;
}

/**
 * `line` with its code spans set aside while `fn` takes the syntax out of the rest: they keep
 * their text as written, still marked as code when `code` (markdown that renders them as code)
 * or as bare text.
 */
function outsideCode(line: string, code: boolean, fn: (masked: string) => string): string {
  const spans: string[] = [];
  const masked = line.replace(CODE_SPAN, (_, ticks: string, text: string) => {
    const t = text.trim();
    spans.push(code && t ? `${ticks}${t}${ticks}` : t);
    return `\uE000${spans.length - 1}\uE001`;
  });
  return fn(masked)
    .replace(/\uE000(\d+)\uE001/g, (_, i: string) => spans[Number(i)] ?? '')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** A line's inline syntax taken out. */
const lineText = (line: string, code: boolean): string =>
  outsideCode(line, code, (masked) => inlineText(masked, code));

/** A table row's cells, joined so they read as a row. */
const rowText = (line: string, code: boolean): string =>
  outsideCode(line.trim().replace(/^\||\|$/g, ''), code, (row) =>
    row
      .split(/(?<!\\)\|/)
      .map((c) => inlineText(c, code).trim())
      .filter(Boolean)
      .join(' · '),
  );

/** Longest template or query expression taken out; a longer one is left as it is. */
const MAX_TEMPLATE = 4_000;

/**
 * SilverBullet's `${...}` expressions and `{{...}}` templates taken out, across lines, by counting
 * braces (at most MAX_TEMPLATE characters each, so the scan stays linear).
 */
function dropTemplates(src: string): string {
  if (!src.includes('${') && !src.includes('{{')) return src;
  let out = '';
  let at = 0;
  const open = /\$\{|\{\{/g;
  for (let m = open.exec(src); m; m = open.exec(src)) {
    // Inside a code span (an odd number of backticks before it on its line) it is shown as written.
    const from = Math.max(0, m.index - 1_000);
    const lineStart = Math.max(from, src.lastIndexOf('\n', m.index) + 1);
    if ((src.slice(lineStart, m.index).match(/`/g)?.length ?? 0) % 2 === 1) continue;
    let depth = 0;
    let end = -1;
    const stop = Math.min(src.length, m.index + MAX_TEMPLATE);
    for (let i = m.index + m[0].length - 1; i < stop; i++) {
      const c = src[i];
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        end = i + 1;
        if (m[0] === '{{' && src[end] === '}') end++;
        break;
      }
    }
    if (end < 0) continue;
    out += src.slice(at, m.index);
    at = end;
    open.lastIndex = end;
  }
  return out + src.slice(at);
}

/**
 * `md` as readable lines: no code blocks, comments, embeds or markup; list items keep a plain
 * `- ` and paragraphs their blank line between them, so the result reads the same as text and
 * renders as the same text in markdown. Code spans keep their backticks when `code` is set (the
 * text is for a markdown renderer: they show as code, a help note's `[[Note]]` as written).
 */
export function readableLines(md: string, { code = false }: { code?: boolean } = {}): string {
  const src = dropTemplates(md.replace(FRONTMATTER, '').replace(COMMENTS, ' '));
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of src.split(/\r?\n/)) {
    const run = FENCE.exec(raw.replace(QUOTE, ''))?.[1];
    // Fenced code is shown as code to a markdown renderer, and left out of plain text.
    if (fence !== null) {
      const closes = run !== undefined && run[0] === fence[0] && run.length >= fence.length;
      if (code) out.push(closes ? fence : raw.replace(QUOTE, ''));
      if (closes) fence = null;
      continue;
    }
    if (run) {
      fence = run;
      if (code) out.push(raw.replace(QUOTE, '').trim().replace(/\{.*$/, ''));
      continue;
    }
    let line = raw.replace(QUOTE, '').replace(BLOCK_ID, '');
    const callout = CALLOUT.exec(line.trim());
    if (callout) {
      const kind = callout[1]!;
      line = callout[2]!.trim() || kind.charAt(0).toUpperCase() + kind.slice(1).toLowerCase();
    }
    if (RULE.test(line) || (TABLE_SEP.test(line) && line.includes('-'))) {
      if (out.length && out[out.length - 1] !== '') out.push('');
      continue;
    }
    const heading = HEADING.exec(line);
    let item = false;
    let text: string;
    if (heading) text = lineText(heading[1]!, code);
    else if (line.trim().startsWith('|')) text = rowText(line, code);
    else {
      line = line.replace(FOOTNOTE_DEF, '');
      const list = LIST.exec(line);
      if (list) {
        item = true;
        line = line.slice(list[0].length).replace(TASK, '');
      }
      text = lineText(line, code);
    }
    // What is left of `#<tag>` and the like must not read (or render) as a heading.
    text = text.replace(/^#+(?=\s|$)\s*/, '');
    if (text) out.push(item ? `- ${text}` : text);
    else if (raw.trim() === '' && out.length && out[out.length - 1] !== '') out.push('');
  }
  if (fence !== null && code) out.push(fence);
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** `md` without its fenced code blocks. */
function dropFences(md: string): string {
  let fence: string | null = null;
  return md
    .split('\n')
    .filter((l) => {
      const run = FENCE.exec(l.replace(QUOTE, ''))?.[1];
      if (fence !== null) {
        if (run && run[0] === fence[0] && run.length >= fence.length) fence = null;
        return false;
      }
      if (run) fence = run;
      return !run;
    })
    .join('\n');
}

/**
 * Readable lines (`readableLines` with code) cut near `max` characters, at a line or a word: a
 * code span is not cut in two, and a code block cut short is closed, so no markup shows.
 */
export function readableCut(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  const nl = cut.lastIndexOf('\n');
  cut = nl > max / 2 ? cut.slice(0, nl) : cut.replace(/\s+\S*$/, '');
  const lines = cut.split('\n');
  let fence: string | null = null;
  for (const l of lines) {
    const run = FENCE.exec(l)?.[1];
    if (run && (fence === null || (run[0] === fence[0] && run.length >= fence.length)))
      fence = fence === null ? run : null;
  }
  const last = lines[lines.length - 1] ?? '';
  if (fence === null && (last.match(/`/g)?.length ?? 0) % 2 === 1) {
    lines[lines.length - 1] = last.slice(0, last.lastIndexOf('`'));
  }
  if (fence !== null) lines.push('…', fence);
  else lines[lines.length - 1] = `${lines[lines.length - 1]!.trimEnd()}…`;
  return lines.join('\n');
}

/**
 * `md` as one line of readable text (what a snippet shows), code blocks left out; with `code`,
 * code spans keep their backticks (a help note's `[[Note]]` reads as code, not as a link).
 */
export function readableText(md: string, { code = false }: { code?: boolean } = {}): string {
  return readableLines(code ? dropFences(md) : md, { code })
    .replace(/^- /gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const RAW: [string, RegExp][] = [
  ['wiki-link', /\[\[|\]\]/],
  ['embed or image', /!\[/],
  ['link', /\]\(/],
  ['code fence', /```|~~~/],
  ['code span', /`/],
  ['html', /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/],
  ['entity', /&(?:nbsp|amp|lt|gt|quot|#\d+);/],
  ['emphasis', /\*\*|__|~~|==|(?:^|\s)\*\S/m],
  ['comment', /%%|<!--/],
  ['callout', /\[!/],
  ['template', /\{\{|\$\{/],
  ['footnote', /\[\^/],
  ['block id', /\s\^[A-Za-z0-9-]+$/m],
  ['heading', /^\s*(?:>\s*)*#{1,6}\s/m],
  ['table', /^\s*(?:>\s*)*\|/m],
  ['icon', /\.svg#icon/],
];

/**
 * The kinds of raw markdown syntax `text` shows (empty when it reads clean). A `> ` quote, a `- `
 * list item and code (a span or a fenced block) are allowed: they render as what they say.
 */
export function rawMarkup(text: string): string[] {
  // Code (blocks and spans) shows its text as written: what is inside is no markup.
  const lines: string[] = [];
  let fence: string | null = null;
  for (const l of text.split('\n')) {
    const run = FENCE.exec(l.replace(QUOTE, ''))?.[1];
    if (fence !== null) {
      if (run && run[0] === fence[0] && run.length >= fence.length) fence = null;
    } else if (run) fence = run;
    else lines.push(l);
  }
  const prose = lines.join('\n').replace(CODE_SPAN, ' ');
  return RAW.filter(([, re]) => re.test(prose)).map(([name]) => name);
}
