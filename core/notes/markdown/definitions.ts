/** Link reference definitions at the start of a paragraph (`[label]: destination "title"`). */
import { isSpaceOrTab, normalizeLabel, scanDestination, scanLabel, scanTitle, skipSpnl } from './syntax.ts';
import type { Definitions } from './types.ts';

/** Index in `s` after the line ending at or after `i` when only spaces or tabs remain on the line, else -1. */
function lineEnd(s: string, i: number): number {
  while (isSpaceOrTab(s.charCodeAt(i))) i++;
  if (i >= s.length) return i;
  return s.charCodeAt(i) === 10 ? i + 1 : -1;
}

/** One definition at `i`: the index after it (its line ending included), or -1. */
function definitionAt(s: string, i: number, defs: Definitions): number {
  const afterLabel = scanLabel(s, i);
  if (afterLabel < 0 || s.charCodeAt(afterLabel) !== 58) return -1;
  const id = normalizeLabel(s.slice(i + 1, afterLabel - 1));
  if (!id) return -1;
  const destAt = skipSpnl(s, afterLabel + 1);
  const dest = scanDestination(s, destAt);
  if (!dest) return -1;
  const [url, afterDest] = dest;
  let end = -1;
  const titleAt = skipSpnl(s, afterDest);
  if (titleAt > afterDest) {
    const afterTitle = scanTitle(s, titleAt);
    if (afterTitle >= 0) end = lineEnd(s, afterTitle);
  }
  if (end < 0) end = lineEnd(s, afterDest);
  if (end < 0) return -1;
  defs.set(id, url);
  return end;
}

/** Reads the definitions that open a paragraph's content into `defs`; returns where the rest begins. */
export function takeDefinitions(content: string, defs: Definitions): number {
  let at = 0;
  while (content.charCodeAt(at) === 91) {
    const next = definitionAt(content, at, defs);
    if (next < 0) break;
    at = next;
  }
  return at;
}
