/**
 * With a note open, the question decides what the agent works from: "summarize this", "what
 * links here", "what is this about" are about the open note; any other question is about the
 * vault, and the open note is only a hint for the search. Fixed English patterns, deterministic.
 */

const ABOUT_NOTE: RegExp[] = [
  // summarize / sum up / tl;dr with no other target, or "this/it/the note"
  /^(?:please\s+)?(?:summari[sz]e|sum\s+up|tl;?dr|give\s+me\s+(?:a\s+)?(?:summary|tl;?dr|overview)|recap)\b\s*(?:(?:of\s+)?(?:this|it|the\s+(?:open\s+|current\s+)?(?:note|page|document))\b)?[\s.?!]*$/i,
  /\b(?:this|the\s+(?:open|current))\s+(?:note|page|document|file|text)\b/i,
  /\bwhat\s+links?\s+(?:here|to\s+(?:this|it))\b/i,
  /\b(?:backlinks?|links?|headings?|tags?|outline)\s+(?:of|in|to|from)\s+(?:this|it|here)\b/i,
  /^(?:what(?:'s|\s+is)|explain|describe)\s+(?:this|it)(?:\s+(?:about|saying|for))?[\s.?!]*$/i,
  /^(?:what\s+(?:is|does)\s+(?:this|it)\s+(?:say|mean|about))/i,
  /\b(?:here|above)\s*[.?!]*$/i,
  /^(?:translate|rewrite|proofread|shorten|continue)\b/i,
];

/** Whether `message` asks about the open note itself (true) or about the vault (false). */
export function asksAboutOpenNote(message: string): boolean {
  const m = message.trim();
  return ABOUT_NOTE.some((re) => re.test(m));
}
