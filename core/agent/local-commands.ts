/**
 * How the local provider reads a message: explicit commands (create, append, tag, folder,
 * backlinks, summarize) by fixed English patterns, anything else as a search. Deterministic.
 */

import { asksAboutOpenNote } from './intent.ts';

/** What the local provider decided to do with a message. */
export type LocalPlan =
  | { kind: 'create'; title: string; text: string; path: string }
  | { kind: 'append'; note: string; text: string }
  | { kind: 'tag'; tag: string }
  | { kind: 'folder'; path: string }
  | { kind: 'backlinks'; note: string }
  | { kind: 'summarize'; note: string }
  | { kind: 'search'; query: string; words: string[] }
  | { kind: 'help' };

const STOP = new Set(
  (
    'a an and are as at be by can could did do does for from had has have how i in is it its me my ' +
    'of on or our please say says said show tell that the their them there these this those to was ' +
    'we were what when where which who why will with would you your about any anything find search ' +
    'look notes note know wrote write written give list all some something whats'
  ).split(' '),
);

const unquote = (s: string): string =>
  s
    .trim()
    .replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, '')
    .trim();

const stripEnd = (s: string): string => unquote(s.replace(/[.?!]+$/, ''));

/** A file name from a title: characters files cannot hold removed, `.md` added. */
export function pathForTitle(title: string): string {
  const name = title
    .replace(/[\\/:*?"<>|#^[\]]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
  return `${name || 'Untitled'}.md`;
}

/** Keywords of a question: lower-cased words without stop words. */
export function keywords(message: string): string[] {
  const words = message
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s'-]+/gu, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^['-]+|['-]+$/g, '').replace(/'s$/, ''))
    .filter((w) => w.length > 1 && !STOP.has(w));
  return [...new Set(words)].slice(0, 12);
}

const CREATE =
  /^(?:please\s+)?(?:create|make|add|start|write|new)\s+(?:a\s+)?(?:new\s+)?note\b\s*(?:called|titled|named)?\s*([\s\S]*)$/i;
const APPEND_TO = /^(?:please\s+)?(?:append|add)\s+to\s+(?:the\s+)?(?:note\s+)?(.+?)\s*:\s*([\s\S]+)$/i;
const APPEND = /^(?:please\s+)?(?:append|add)\s+([\s\S]+)\s+to\s+(?:the\s+)?(?:note\s+)?(.+)$/i;
const TAG = /(?:\btagged|\bwith\s+(?:the\s+)?tag|\bby\s+tag|\btag)\s+#?([\p{L}\p{N}_/-]+)/iu;
const HASH_TAG = /^(?:please\s+)?(?:find|show|list|search)\b.*?#([\p{L}\p{N}_/-]+)/iu;
const FOLDER = [
  /^(?:please\s+)?(?:list|show|open)\s+(?:me\s+)?(?:the\s+)?(?:contents\s+of\s+)?(?:the\s+)?(?:folder|directory)\s*(.*)$/i,
  /^(?:please\s+)?(?:list|show)\s+(?:me\s+)?(?:the\s+)?notes\s+in\s+(?:the\s+)?(?:folder\s+)?(.+)$/i,
  /^what(?:'s|\s+is)\s+in\s+(?:the\s+)?folder\s*(.*)$/i,
];
const BACKLINKS = [
  /\bbacklinks?\s+(?:of|to|for)\s+(?:the\s+)?(?:note\s+)?(.+)$/i,
  /^(?:what|which)(?:\s+notes?)?\s+links?\s+to\s+(?:the\s+)?(?:note\s+)?(.+)$/i,
];
const LINKS_HERE = /^(?:what|which)(?:\s+notes?)?\s+links?\s+(?:here|to\s+(?:this|it))\b/i;
const SUMMARIZE =
  /^(?:please\s+)?(?:summari[sz]e|sum\s+up|give\s+me\s+a\s+summary\s+of|summary\s+of)\s*(?:the\s+)?(?:note\s+)?(.*)$/i;

/** Splits "Title with text Body" / "Title: Body" / "\"Title\" Body" into title and text. */
function titleAndText(rest: string): { title: string; text: string } {
  const quoted = /^["“'](.+?)["”']\s*([\s\S]*)$/.exec(rest);
  let title: string;
  let text: string;
  if (quoted) {
    title = quoted[1]!;
    text = quoted[2]!;
  } else {
    const m = /^(.+?)(?:\s*:\s+|\s*\n|\s+(?=(?:with|containing|saying|that\s+says)\b))([\s\S]*)$/i.exec(rest);
    title = m ? m[1]! : rest;
    text = m ? m[2]! : '';
  }
  text = text.replace(
    /^(?:with|containing|saying|that\s+says)\s+(?:the\s+)?(?:text|content|body)?\s*:?\s*/i,
    '',
  );
  text = text.replace(/^:\s*/, '');
  return { title: stripEnd(title), text: unquote(text) };
}

/** "What do my notes say about", "search my notes for" and the like: asking, not what is asked. */
const FRAME =
  /^(?:please\s+)?(?:(?:what|which)\s+(?:do|did|does)\s+(?:my|the)\s+notes?\s+(?:say|tell\s+me|mention|contain)(?:\s+(?:about|on|of))?|(?:tell|remind)\s+me\s+(?:about|of)|(?:search|look)\s+(?:(?:in|through)\s+)?(?:my\s+notes\s+)?(?:for|up)|find\s+(?:my\s+)?notes?\s+(?:about|on|with|mentioning)|(?:do\s+i\s+have|are\s+there|is\s+there)\s+(?:any\s+)?notes?\s+(?:about|on|with)|what\s+have\s+i\s+(?:written|noted)\s+(?:about|on))\s+/i;

/** Most characters of a search query (the search tool's own limit). */
const MAX_QUERY = 500;

/**
 * What to search for: the message as a person would type it into search (the search reads
 * questions well and drops its stop words), without the frame of asking the notes or the end
 * punctuation; only the keywords when it is longer than a query may be.
 */
export function searchQuery(message: string): string {
  const q = message
    .trim()
    .replace(FRAME, '')
    .replace(/\s+in\s+my\s+notes$/i, '')
    .replace(/[\s.?!]+$/, '')
    .trim();
  return q.length <= MAX_QUERY ? q : keywords(q).join(' ');
}

/** Reads a message as one plan. `notePath` is the note the user pointed at, if any. */
export function planFor(message: string, notePath?: string): LocalPlan {
  const plan = readPlan(message.trim(), notePath);
  // "this", "it", "this note" mean the note the user is looking at.
  if (notePath && 'note' in plan && /^(?:this|it|this note|the note|here)$/i.test(plan.note)) {
    return { ...plan, note: notePath };
  }
  return plan;
}

function readPlan(msg: string, notePath?: string): LocalPlan {
  let m = CREATE.exec(msg);
  if (m) {
    const { title, text } = titleAndText(m[1]!.trim());
    if (title) return { kind: 'create', title, text, path: pathForTitle(title) };
  }
  m = APPEND_TO.exec(msg) ?? null;
  if (m) return { kind: 'append', note: stripEnd(m[1]!), text: unquote(m[2]!) };
  m = APPEND.exec(msg);
  if (m) return { kind: 'append', note: stripEnd(m[2]!), text: unquote(m[1]!) };
  for (const re of FOLDER) {
    m = re.exec(msg);
    if (m) return { kind: 'folder', path: stripEnd(m[1] ?? '').replace(/^\/+|\/+$/g, '') };
  }
  if (notePath && LINKS_HERE.test(msg)) return { kind: 'backlinks', note: notePath };
  for (const re of BACKLINKS) {
    m = re.exec(msg);
    if (m) return { kind: 'backlinks', note: stripEnd(m[1]!) };
  }
  m = TAG.exec(msg) ?? HASH_TAG.exec(msg);
  if (m) return { kind: 'tag', tag: m[1]!.toLowerCase() };
  m = SUMMARIZE.exec(msg);
  if (m) {
    const note = stripEnd(m[1]!).replace(/^(?:this|it)$/i, '');
    if (note) return { kind: 'summarize', note };
    if (notePath) return { kind: 'summarize', note: notePath };
  }
  // With a note open, only questions about it use it; any other question searches the vault.
  if (notePath && asksAboutOpenNote(msg)) return { kind: 'summarize', note: notePath };
  const query = searchQuery(msg);
  const words = keywords(query);
  return words.length ? { kind: 'search', query, words } : { kind: 'help' };
}
