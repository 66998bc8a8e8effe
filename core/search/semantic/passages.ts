/**
 * Notes split into passages for embedding and citing: one passage per heading section, long
 * sections cut at paragraph (then line, then word) boundaries so no passage exceeds MAX_CHARS.
 */

/** One passage of a note: the unit that is embedded, searched and cited. */
export interface Passage {
  /** The note's vault path. */
  path: string;
  /** The nearest heading above the passage (without `#`); '' before the first heading. */
  heading: string;
  /** Position among the note's passages, from 0. */
  n: number;
  /** The passage's markdown text (the heading line included). */
  text: string;
  /** Hash of what is embedded (title, heading and text): a passage is re-embedded only when it changes. */
  hash: string;
}

/** Longest passage in characters (about 300 to 400 tokens of English). */
export const MAX_CHARS = 1_500;
const MIN_CHARS = 40;

/** A 53-bit FNV-style hash of `s` as base-36 text: cheap change detection, not security. */
export function textHash(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** Cuts `text` into pieces of at most `max` characters at the widest boundary that fits. */
function cut(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  for (const sep of ['\n\n', '\n', ' ']) {
    const parts = text.split(sep);
    if (parts.length < 2) continue;
    const out: string[] = [];
    let cur = '';
    for (const p of parts) {
      const next = cur ? `${cur}${sep}${p}` : p;
      if (next.length <= max) cur = next;
      else {
        if (cur) out.push(cur);
        cur = p;
      }
    }
    if (cur) out.push(cur);
    return out.flatMap((x) => cut(x, max));
  }
  const out: string[] = [];
  for (let i = 0; i < text.length; i += max) out.push(text.slice(i, i + max));
  return out;
}

/** The passages of one note's body (`content` without frontmatter), in document order. */
export function splitPassages(path: string, title: string, content: string, max = MAX_CHARS): Passage[] {
  const sections: { heading: string; lines: string[] }[] = [{ heading: '', lines: [] }];
  let fenced = false;
  for (const line of content.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) sections.push({ heading: m[1]!, lines: [line] });
    else sections[sections.length - 1]!.lines.push(line);
  }
  const out: Passage[] = [];
  for (const s of sections) {
    const text = s.lines.join('\n').trim();
    if (text.replace(/^#+\s*/, '').trim().length === 0) continue;
    for (const piece of cut(text, max)) {
      if (piece.trim().length < MIN_CHARS && out.length > 0 && out[out.length - 1]!.heading === s.heading) {
        continue;
      }
      const heading = s.heading;
      out.push({
        path,
        heading,
        n: out.length,
        text: piece,
        hash: textHash(embedText(title, heading, piece)),
      });
    }
  }
  return out;
}

/** What is sent to the model for a passage: its note title and heading give it context. */
export function embedText(title: string, heading: string, text: string): string {
  return heading && heading !== title ? `${title} › ${heading}\n${text}` : `${title}\n${text}`;
}
