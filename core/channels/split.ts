/** Splits a reply into messages a provider accepts. */

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Where to cut `text` so the first part has at most `limit` UTF-16 units: a paragraph, a line, a space, else hard. */
function cutAt(text: string, limit: number): number {
  const window = text.slice(0, limit + 1);
  for (const sep of ['\n\n', '\n', ' ']) {
    const at = window.lastIndexOf(sep, limit);
    if (at >= limit / 2) return at;
  }
  // A hard cut never separates the halves of a surrogate pair.
  return limit > 1 && isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/**
 * Splits `text` into parts of at most `limit` UTF-16 units (what Telegram and WhatsApp count),
 * preferring paragraph, line and word boundaries. At most `maxParts` parts; the last one then
 * ends with "…" to show that the rest was dropped.
 */
export function splitReply(text: string, limit: number, maxParts = 10): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    if (parts.length === maxParts - 1 && rest.length > limit) {
      const at = cutAt(rest, limit - 1);
      parts.push(`${rest.slice(0, at).trimEnd()}…`);
      break;
    }
    if (rest.length <= limit) {
      parts.push(rest);
      break;
    }
    const at = cutAt(rest, limit);
    const part = rest.slice(0, at).trimEnd();
    if (part) parts.push(part);
    rest = rest.slice(at).trimStart();
  }
  return parts;
}
