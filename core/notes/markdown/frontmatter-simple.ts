/**
 * The frontmatter most notes have (`key: value` lines and lists of plain words), read without the
 * YAML library: a cold index spent about a fifth of its parse in `yaml`'s
 * `parseDocument` for blocks such as
 *
 * ```yaml
 * tags:
 *   - design
 * created: 2021-08-18
 * rating: 4
 * ```
 *
 * `simpleFrontmatter` accepts only a narrow subset whose meaning under YAML 1.2's core schema (the
 * `yaml` package's default, used by `parseFrontmatter`) is certain, and returns null for anything
 * else (comments, nested maps, anchors, escapes, numbers other than plain integers, non-ASCII
 * text, duplicate keys, tabs, CRLF, ...): those go to the YAML library as before. The subset and
 * the library agree value for value; tests/core/notes/markdown/frontmatter-simple.test.ts holds
 * them to it (cases and a generated corpus).
 */

/** A key: ASCII letters, digits, `_` and `-`, starting with a letter or `_`. */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
/** A list item: `- value`, indented by spaces or not. */
const ITEM_LINE = /^( *)- +(.*)$/;
/**
 * A plain scalar we read ourselves: starts with a letter or digit (so never a YAML indicator),
 * then printable ASCII without `:` `#` (a mapping or a comment), `[` `]` `{` `}` (flow syntax) or
 * backslashes, and no space at its end. A comma is plain text outside a flow list (`tags: a, b`
 * is the string "a, b"); a flow list's items are cut at commas before they get here.
 */
const PLAIN = /^[A-Za-z0-9](?:[ !"$%&'()*+,./;<=>?@^_`|~A-Za-z0-9-]*[!"$%&'()*+,./;<=>?@^_`|~A-Za-z0-9-])?$/;
/** The core schema's null and boolean words (their values differ from the text). */
const NULL_WORDS = new Set(['null', 'Null', 'NULL']);
const TRUE_WORDS = new Set(['true', 'True', 'TRUE']);
const FALSE_WORDS = new Set(['false', 'False', 'FALSE']);
/** A decimal integer we convert ourselves (short enough to be exact). */
const INT = /^[0-9]{1,15}$/;
/** Starts like a number of the core schema other than a plain integer: left to the library. */
const NUMBERISH = /^(?:0[ox]|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?$)/;
/** A quoted string without escapes, quotes or backslashes inside. */
const DOUBLE = /^"([ !#-[\]-~]*)"$/;
const SINGLE = /^'([ -&(-~]*)'$/;

const NO = Symbol('not simple');
type Value = string | number | boolean | null | Value[];

/** One scalar, or NO when it is outside the subset. */
function scalar(text: string): Value | typeof NO {
  const v = text.endsWith(' ') ? text.trimEnd() : text;
  if (!v) return NO;
  // Quoted, in a block or as a flow list's item (`aliases: ["a b"]`: a quoted comma would have
  // been cut in two, and neither half is quoted whole).
  let q = DOUBLE.exec(v);
  if (q) return q[1]!;
  q = SINGLE.exec(v);
  if (q) return q[1]!;
  if (v === '~') return null;
  if (!PLAIN.test(v)) return NO;
  const c = v.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    if (INT.test(v)) return Number(v);
    if (NUMBERISH.test(v)) return NO;
    return v;
  }
  if (NULL_WORDS.has(v)) return null;
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  return v;
}

/** `[a, b]` with plain items, or NO. */
function flowList(text: string): Value[] | typeof NO {
  const v = text.trimEnd();
  if (v.charCodeAt(0) !== 91 /* [ */ || v.charCodeAt(v.length - 1) !== 93 /* ] */) return NO;
  const inner = v.slice(1, -1);
  if (!inner.trim()) return [];
  const out: Value[] = [];
  for (const part of inner.split(',')) {
    const s = scalar(part.trim());
    if (s === NO) return NO;
    out.push(s);
  }
  return out;
}

/**
 * The frontmatter's value when its YAML lies in the simple subset, else null (the caller parses it
 * with the YAML library). Never throws.
 */
export function simpleFrontmatter(yamlText: string): Record<string, unknown> | null {
  if (!yamlText || yamlText.includes('\r') || yamlText.includes('\t')) return null;
  const lines = yamlText.split('\n');
  const out: Record<string, unknown> = {};
  let keys = 0;
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (!line) {
      i++;
      continue;
    }
    const m = KEY_LINE.exec(line);
    if (!m) return null;
    const key = m[1]!;
    if (key === '__proto__' || Object.hasOwn(out, key)) return null;
    if (NULL_WORDS.has(key) || TRUE_WORDS.has(key) || FALSE_WORDS.has(key)) return null;
    const rest = m[2] ?? '';
    i++;
    if (rest.trim()) {
      const value = rest.charCodeAt(0) === 91 ? flowList(rest) : scalar(rest);
      if (value === NO) return null;
      out[key] = value;
      keys++;
      continue;
    }
    // `key:` alone: a block list below it (at one indentation), or null.
    const items: Value[] = [];
    let indent = -1;
    while (i < lines.length) {
      const next = lines[i]!;
      if (!next) {
        i++;
        continue;
      }
      const item = ITEM_LINE.exec(next);
      if (!item) {
        // Indented but not an item (a nested map, a continued scalar): not ours.
        if (next.charCodeAt(0) === 32 || next.charCodeAt(0) === 45) return null;
        break;
      }
      if (indent < 0) indent = item[1]!.length;
      else if (item[1]!.length !== indent) return null;
      const s = scalar(item[2]!);
      if (s === NO) return null;
      items.push(s);
      i++;
    }
    out[key] = indent < 0 ? null : items;
    keys++;
  }
  return keys ? out : null;
}
