/**
 * Obsidian's syntax rewritten, before micromark renders it, into plain markdown the DOM pass
 * (`obsidian-render.ts`) recognises: wiki-links become `#note=` links, embeds and local images
 * `#embed=` links, block ids `#block=` links; `%% comments %%` go. Code (fenced or inline) is
 * left exactly as written. Pure: no DOM, so it is tested in node.
 */

/** A wiki-link or embed: `[[target#heading|alias]]`, with `\|` accepted for the alias (tables). */
const WIKI = /(!?)\[\[([^\]\n]+?)\]\]/g;
/** A markdown image with a local (scheme-less) source. */
const LOCAL_IMAGE = /!\[([^\]\n]*)\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)/g;
const BLOCK_ID = /[ \t]\^([A-Za-z0-9-]+)[ \t]*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

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

/** Runs `fn` on the parts of `line` outside inline code spans. */
function outsideInlineCode(line: string, fn: (s: string) => string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf('`', i);
    if (tick < 0) break;
    let run = 1;
    while (line[tick + run] === '`') run++;
    const close = line.indexOf('`'.repeat(run), tick + run);
    if (close < 0) break;
    out += fn(line.slice(i, tick)) + line.slice(tick, close + run);
    i = close + run;
  }
  return out + fn(line.slice(i));
}

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
  const lines = source.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  let inComment = false;
  for (const line of lines) {
    if (fence) {
      out.push(line);
      if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const f = FENCE.exec(line);
    if (f && !inComment) {
      fence = f[1]!.slice(0, 3);
      out.push(line);
      continue;
    }
    // `%% comments %%`, inline or across lines: hidden, as in Obsidian's reading view.
    let text = '';
    let rest = line;
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
    text += rest;
    if (text.trim() === '' && line.trim() !== '') continue;
    const block = BLOCK_ID.exec(text);
    const body = block ? text.slice(0, block.index) : text;
    const rewritten = outsideInlineCode(body, (s) => rewriteText(s, resolveNote));
    out.push(block ? `${rewritten} [](#block=${dest(block[1]!)})` : rewritten);
  }
  return out.join('\n');
}

/** Lines of `source` that are task items (outside code), in order: the index of the `[ ]` mark's char. */
export function taskMarks(source: string): number[] {
  const out: number[] = [];
  let fence: string | null = null;
  let offset = 0;
  for (const line of source.split('\n')) {
    if (fence) {
      if (line.trim().startsWith(fence)) fence = null;
    } else {
      const f = FENCE.exec(line);
      if (f) fence = f[1]!.slice(0, 3);
      else {
        const m = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[)[ xX](?=\](?:\s|$))/.exec(line);
        if (m) out.push(offset + m[1]!.length);
      }
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
