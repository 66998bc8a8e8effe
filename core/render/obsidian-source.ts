/**
 * Obsidian's syntax rewritten, before micromark renders it, into plain markdown the DOM pass
 * (`obsidian-render.ts`) recognises: wiki-links become `#note=` links, embeds and local images
 * `#embed=` links, block ids `#block=` links; `%% comments %%` go. Code (fenced or inline) is
 * left exactly as written. Pure: no DOM, so it is tested in node.
 */

import { codeRanges, type Piece, piecesOf } from './code-ranges.ts';

/** A wiki-link or embed: `[[target#heading|alias]]`, with `\|` accepted for the alias (tables). */
const WIKI = /(!?)\[\[([^\]\n]+?)\]\]/g;
/** A markdown image with a local (scheme-less) source. */
const LOCAL_IMAGE = /!\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)/g;
const BLOCK_ID = /[ \t]\^([A-Za-z0-9-]+)[ \t]*$/;
/** An inline tag, `#tag` or `#tag/nested` (not all digits), after a space or at the line start. */
const TAG = /(^|[ \t])#([\p{L}\p{N}_/-]*[\p{L}_/-][\p{L}\p{N}_/-]*)/gu;

/** Parts of `[[...]]`: target (may be empty for `#heading` in the same note), `#...` part, alias. */
export interface WikiParts {
  target: string;
  /** After `#`: a heading, or `^blockid`; '' when none. */
  subpath: string;
  alias?: string;
}

/** Splits the inside of `[[...]]`. */
export function wikiParts(inner: string): WikiParts {
  const [left = '', ...rest] = inner.replace(/\\\|/g, '|').split('|');
  const alias = rest.length ? rest.join('|').trim() : undefined;
  const hash = left.indexOf('#');
  const target = (hash < 0 ? left : left.slice(0, hash)).trim();
  const subpath = hash < 0 ? '' : left.slice(hash + 1).trim();
  return alias === undefined ? { target, subpath } : { target, subpath, alias };
}

/** A value safe inside a markdown link destination. */
const dest = (s: string) =>
  encodeURIComponent(s).replace(/[()'!*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/** A value safe as link text. */
const label = (s: string) => s.replace(/[[\]\\`*_<>]/g, '').trim() || '…';

/** How a wiki-link target resolves to a note path (or null). */
export type ResolveNote = (target: string) => string | null;

/** Rewrites one stretch of text outside code. */
function rewriteText(text: string, resolveNote: ResolveNote): string {
  return text
    .replace(WIKI, (_all, bang: string, inner: string) => {
      const p = wikiParts(inner);
      if (bang) return `[${label(p.alias ?? p.target)}](#embed=${dest(inner.replace(/\\\|/g, '|'))})`;
      const shown = label(
        p.alias ??
          (p.subpath ? `${p.target}${p.target ? ' › ' : ''}${p.subpath.replace(/^\^/, '')}` : p.target),
      );
      // The anchor rides in the link's title; the DOM pass moves it to data-anchor.
      const title = p.subpath ? ` "${p.subpath.replace(/["\\]/g, '')}"` : '';
      if (!p.target) return `[${shown}](#anchor${title})`;
      const path = resolveNote(p.target);
      // A note; anything else (a file, unresolved) is looked up again by the DOM pass.
      if (path?.toLowerCase().endsWith('.md')) return `[${shown}](#note=${dest(path)}${title})`;
      return `[${shown}](#file=${dest(p.target)}${title})`;
    })
    .replace(TAG, (_all, pre: string, tag: string) => `${pre}[#${tag}](#tag=${dest(tag)})`)
    .replace(LOCAL_IMAGE, (all, alt: string, src: string) => {
      const s = src.replace(/^<|>$/g, '');
      if (/^[a-z][a-z0-9+.-]*:/i.test(s) || s.startsWith('//') || s.startsWith('#')) return all;
      let decoded = s;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        // keep it as written
      }
      return `[${label(alt || decoded)}](#embed=${dest(`${decoded}|md`)})`;
    });
}

/**
 * The note's markdown with Obsidian's constructs rewritten (see the module comment).
 * `resolveNote` maps a wiki-link target to a note path.
 */
export function rewriteObsidian(source: string, resolveNote: ResolveNote): string {
  const ranges = codeRanges(source);
  const cursor = { i: 0 };
  const out: string[] = [];
  let inComment = false;
  let offset = 0;
  const notes: string[] = [];
  for (const line of source.split('\n')) {
    const pieces = piecesOf(line, offset, ranges, cursor);
    offset += line.length + 1;
    // `%% comments %%`, inline or across lines, outside code: hidden, as in Obsidian's reading view.
    const kept: Piece[] = [];
    for (const piece of pieces) {
      if (piece.code) {
        if (!inComment) kept.push(piece);
        continue;
      }
      let text = '';
      let rest = piece.text;
      for (;;) {
        if (inComment) {
          const end = rest.indexOf('%%');
          if (end < 0) {
            rest = '';
            break;
          }
          rest = rest.slice(end + 2);
          inComment = false;
        }
        const start = rest.indexOf('%%');
        if (start < 0) break;
        text += rest.slice(0, start);
        rest = rest.slice(start + 2);
        inComment = true;
      }
      kept.push({ text: text + rest, code: false });
    }
    const joined = kept.map((p) => p.text).join('');
    if (joined.trim() === '' && line.trim() !== '') continue;
    const last = kept[kept.length - 1];
    const block = last && !last.code ? BLOCK_ID.exec(last.text) : null;
    if (block && last) last.text = last.text.slice(0, block.index);
    const rewritten = kept
      .map((p) => (p.code ? p.text : rewriteText(inlineFootnotes(p.text, notes), resolveNote)))
      .join('');
    out.push(block ? `${rewritten} [](#block=${dest(block[1]!)})` : rewritten);
  }
  for (const [i, text] of notes.entries()) out.push('', `[^quire-inline-${i + 1}]: ${text}`);
  return out.join('\n');
}

/** Obsidian's inline footnotes `^[text]` as GFM footnote references; their texts go to `notes`. */
function inlineFootnotes(text: string, notes: string[]): string {
  return text.replace(/\^\[([^\]\n]+)\]/g, (_all, note: string) => {
    notes.push(note);
    return `[^quire-inline-${notes.length}]`;
  });
}

/** Lines of `source` that are task items (outside code), in order: the index of the `[ ]` mark's char. */
export function taskMarks(source: string): number[] {
  const ranges = codeRanges(source);
  const cursor = { i: 0 };
  const out: number[] = [];
  let offset = 0;
  for (const line of source.split('\n')) {
    const m = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[)[ xX](?=\](?:\s|$))/.exec(line);
    if (m) {
      const first = piecesOf(line, offset, ranges, cursor)[0];
      // A task line inside code (at any nesting) is text, not a task.
      if (first && !first.code && first.text.length > m[1]!.length) out.push(offset + m[1]!.length);
    }
    offset += line.length + 1;
  }
  return out;
}

/** `source` with the task mark at `at` flipped (`[ ]` ↔ `[x]`). */
export function toggleTask(source: string, at: number): string {
  const c = source[at];
  return source.slice(0, at) + (c === ' ' ? 'x' : ' ') + source.slice(at + 1);
}

/** The section of `source` under the heading `heading` (to the next heading of its level or higher). */
export function sectionOf(source: string, heading: string): string | null {
  const want = heading.trim().toLowerCase();
  const lines = source.split('\n');
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(lines[i]!);
    if (!m) continue;
    if (start < 0) {
      if (m[2]!.trim().toLowerCase() === want) {
        start = i;
        level = m[1]!.length;
      }
    } else if (m[1]!.length <= level) return lines.slice(start, i).join('\n');
  }
  return start < 0 ? null : lines.slice(start).join('\n');
}

/** The paragraph or list item of `source` carrying the block id `^id`. */
export function blockOf(source: string, id: string): string | null {
  const lines = source.split('\n');
  const i = lines.findIndex((l) =>
    new RegExp(`[ \\t]\\^${id.replace(/[^A-Za-z0-9-]/g, '')}[ \\t]*$`).test(l),
  );
  if (i < 0) return null;
  if (/^\s*(?:[-*+]|\d+[.)])\s/.test(lines[i]!)) return lines[i]!;
  let s = i;
  while (s > 0 && lines[s - 1]!.trim() !== '') s--;
  return lines.slice(s, i + 1).join('\n');
}
