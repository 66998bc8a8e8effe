import type { Heading, Nodes, Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { isMap, isScalar, parseDocument, stringify as stringifyYaml } from 'yaml';
import './markdown/micromark-linear.ts';
import { DomainError } from '../errors.ts';
import { parseComplexity } from './markdown/guard.ts';
import { FRONTMATTER } from './markdown/parts.ts';

/** Where a section PATCH applies. */
export type PatchTarget =
  | { type: 'heading'; path: string[] }
  | { type: 'block'; id: string }
  | { type: 'frontmatter'; key: string }
  | { type: 'document' };

/** One section PATCH: what to do, where, with what. */
export interface PatchOperation {
  operation: 'append' | 'prepend' | 'replace';
  target: PatchTarget;
  /** A string for heading, block and document targets; any JSON value for a frontmatter key. */
  content: unknown;
  /** Create a missing heading (at the end of its parent section) instead of 404. */
  createTarget?: boolean;
}

/** A span of the raw text: replace swaps [start, end); prepend inserts at `head`, append at `tail`. */
export interface TargetSpan {
  start: number;
  end: number;
  head: number;
  tail: number;
}

const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).freeze();
const BLOCK_ID = /^[A-Za-z0-9-]+$/;

const eolOf = (text: string): string => (/\r\n/.test(text) ? '\r\n' : '\n');
/** `s` with its line endings turned into `eol`. */
const withEol = (s: string, eol: string): string => s.replace(/\r\n|\n/g, eol);
const endsWithEol = (s: string): boolean => s.endsWith('\n');
/** Offset just after the line that contains `pos` (its end of line included). */
const lineEnd = (text: string, pos: number): number => {
  const n = text.indexOf('\n', pos);
  return n < 0 ? text.length : n + 1;
};
const lineStart = (text: string, pos: number): number => text.lastIndexOf('\n', pos - 1) + 1;

const parseTree = (text: string, bodyStart: number): Root => {
  const why = parseComplexity(text, bodyStart);
  if (why) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `This note cannot be patched by heading or block because ${why}; patch the document or a frontmatter key.`,
    );
  }
  return processor.parse(text);
};

const plainText = (n: Nodes): string =>
  'value' in n && typeof n.value === 'string'
    ? n.value
    : 'children' in n
      ? (n.children as Nodes[]).map(plainText).join('')
      : '';

interface HeadingInfo {
  level: number;
  /** Raw text of the heading line(s) between the markers, and its plain text. */
  raw: string;
  plain: string;
  lineStart: number;
  bodyStart: number;
  /** Where its section ends: the next heading of the same or a higher level, or the end. */
  sectionEnd: number;
  parent: HeadingInfo | null;
  line: number;
}

const headingsOf = (text: string, bodyStart: number): HeadingInfo[] => {
  const tree = parseTree(text, bodyStart);
  const out: HeadingInfo[] = [];
  const stack: HeadingInfo[] = [];
  for (const node of tree.children) {
    if (node.type !== 'heading') continue;
    const h = node as Heading;
    const start = h.position!.start.offset!;
    const first = h.children[0]?.position?.start.offset;
    const last = h.children.at(-1)?.position?.end.offset;
    const info: HeadingInfo = {
      level: h.depth,
      raw: first === undefined || last === undefined ? '' : text.slice(first, last).trim(),
      plain: plainText(h).trim(),
      lineStart: lineStart(text, start),
      bodyStart: lineEnd(text, h.position!.end.offset! - 1),
      sectionEnd: text.length,
      parent: null,
      line: h.position!.start.line,
    };
    while (stack.length && stack.at(-1)!.level >= info.level) stack.pop()!.sectionEnd = info.lineStart;
    info.parent = stack.at(-1) ?? null;
    stack.push(info);
    out.push(info);
  }
  return out;
};

const matches = (h: HeadingInfo, name: string): boolean => h.raw === name.trim() || h.plain === name.trim();

/** Trims trailing blank lines off [from, to): where appended text goes. */
const contentEnd = (text: string, from: number, to: number): number => {
  let end = to;
  while (end > from) {
    const s = lineStart(text, end - (text[end - 1] === '\n' ? 1 : 0));
    if (s < from || text.slice(s, end).trim() !== '') break;
    end = s;
  }
  return end;
};

const headingSpan = (h: HeadingInfo, text: string): TargetSpan => {
  const tail = contentEnd(text, h.bodyStart, h.sectionEnd);
  return { start: h.bodyStart, end: tail, head: h.bodyStart, tail };
};

/** The heading section named by `path` (level by level), or the deepest matching parent. */
function findHeading(
  text: string,
  bodyStart: number,
  path: string[],
): { found: HeadingInfo } | { parent: HeadingInfo | null; missing: string[] } {
  const all = headingsOf(text, bodyStart);
  let parents: (HeadingInfo | null)[] = [null];
  for (const [i, name] of path.entries()) {
    const next = all.filter((h) => parents.includes(h.parent) && matches(h, name));
    if (next.length === 0) {
      if (parents.length > 1) ambiguous(path.slice(0, i), parents as HeadingInfo[]);
      return { parent: parents[0] ?? null, missing: path.slice(i) };
    }
    parents = next;
  }
  if (parents.length > 1) ambiguous(path, parents as HeadingInfo[]);
  return { found: parents[0]! };
}

function ambiguous(path: string[], candidates: HeadingInfo[]): never {
  throw new DomainError(
    'CONFLICT',
    `The heading path ${JSON.stringify(path)} matches ${candidates.length} headings (lines ${candidates.map((c) => c.line).join(', ')}); make it unique.`,
    { candidates: candidates.map((c) => ({ line: c.line, level: c.level, heading: c.raw })) },
  );
}

/** The block that ends with `^id`: a paragraph, a list item or a table; its span keeps the marker. */
function findBlock(text: string, bodyStart: number, id: string): TargetSpan | null {
  if (!BLOCK_ID.test(id)) {
    throw new DomainError('VALIDATION_ERROR', 'Invalid target.id: letters, digits and dashes only.');
  }
  const tree = parseTree(text, bodyStart);
  const marker = new RegExp(`(\\s)\\^${id}[ \\t]*$`);
  let hit: TargetSpan | null = null;
  const visit = (node: Nodes, parent: Nodes | null) => {
    if (hit) return;
    if (node.type === 'paragraph' || node.type === 'table') {
      const s = node.position!.start.offset!;
      const e = node.position!.end.offset!;
      const m = marker.exec(text.slice(s, e));
      if (m) {
        const outer = parent?.type === 'listItem' ? parent : node;
        hit = {
          start: s,
          end: s + m.index,
          head: lineStart(text, outer.position!.start.offset!),
          tail: lineEnd(text, e - 1),
        };
      }
      return;
    }
    if ('children' in node) for (const k of node.children as Nodes[]) visit(k, node);
  };
  visit(tree, null);
  return hit;
}

/** Where the target is in `text`, or null when it is missing. */
export function locateTarget(text: string, target: PatchTarget): TargetSpan | null {
  const fm = FRONTMATTER.exec(text)?.[0].length ?? 0;
  if (target.type === 'document') return { start: fm, end: text.length, head: fm, tail: text.length };
  if (target.type === 'heading') {
    const r = findHeading(text, fm, target.path);
    return 'found' in r ? headingSpan(r.found, text) : null;
  }
  if (target.type === 'block') return findBlock(text, fm, target.id);
  throw new DomainError('VALIDATION_ERROR', 'A frontmatter key has no text span; read the frontmatter.');
}

const requireString = (content: unknown): string => {
  if (typeof content !== 'string') {
    throw new DomainError('VALIDATION_ERROR', 'Invalid content: it must be a string for this target.');
  }
  return content;
};

/** Joins inserted text at line boundaries: a line break before it when needed, one after it. */
const insertLines = (text: string, at: number, content: string, eol: string): string => {
  if (content === '') return text;
  const before = at > 0 && text[at - 1] !== '\n' ? eol : '';
  const body = withEol(content, eol);
  const after = endsWithEol(body) ? '' : eol;
  return text.slice(0, at) + before + body + after + text.slice(at);
};

const replaceSpan = (text: string, span: TargetSpan, content: string, eol: string, trim = false): string => {
  let body = withEol(content, eol);
  if (trim) body = body.replace(/\r?\n$/, '');
  else if (body !== '' && span.end < text.length && !endsWithEol(body)) body += eol;
  return text.slice(0, span.start) + body + text.slice(span.end);
};

function patchFrontmatter(text: string, op: PatchOperation, eol: string): string {
  const key = (op.target as { key: string }).key;
  const block = FRONTMATTER.exec(text)?.[0] ?? '';
  const yamlStart = block ? lineEnd(block, 0) : 0;
  const closeStart = block ? block.search(/---[ \t]*(?:\r?\n)?$/) : 0;
  const doc = parseDocument(text.slice(yamlStart, closeStart), { uniqueKeys: true });
  if (doc.errors.length) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `The note's frontmatter is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it first.`,
    );
  }
  const map = doc.contents;
  if (map !== null && !isMap(map) && !(isScalar(map) && map.value === null)) {
    throw new DomainError('VALIDATION_ERROR', "The note's frontmatter is not a map of keys.");
  }
  const pair = isMap(map)
    ? map.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key)
    : undefined;
  const old: unknown = pair ? doc.toJS()?.[key] : undefined;
  let value: unknown = op.content;
  if (op.operation !== 'replace') {
    const add = Array.isArray(op.content) ? op.content : [op.content];
    const cur = old === undefined || old === null ? [] : Array.isArray(old) ? old : [old];
    value = op.operation === 'append' ? [...cur, ...add] : [...add, ...cur];
  }
  const line = withEol(stringifyYaml({ [key]: value }, { lineWidth: 0 }).replace(/\n$/, ''), eol);
  if (!block) return `---${eol}${line}${eol}---${eol}${text}`;
  if (pair && isScalar(pair.key) && pair.key.range) {
    const from = yamlStart + pair.key.range[0];
    const valueRange = (pair.value as { range?: [number, number, number] } | null)?.range;
    const to = yamlStart + (valueRange ? valueRange[1] : pair.key.range[2]);
    const tail = endsWithEol(text.slice(from, to)) ? eol : '';
    return text.slice(0, from) + line + tail + text.slice(to);
  }
  return insertLines(text, closeStart, line, eol);
}

/**
 * Applies one section PATCH to a note's raw text and returns the new text. Everything outside
 * the target (line endings, frontmatter, other sections) is kept byte for byte; inserted text
 * takes the note's line endings. Throws TARGET_NOT_FOUND (404), CONFLICT (ambiguous heading
 * path, 409) or VALIDATION_ERROR.
 */
export function applySectionPatch(text: string, op: PatchOperation): string {
  const eol = eolOf(text);
  const t = op.target;
  if (t.type === 'frontmatter') return patchFrontmatter(text, op, eol);
  const content = requireString(op.content);
  let span: TargetSpan | null;
  if (t.type === 'heading') {
    if (t.path.length === 0 || t.path.some((p) => p.trim() === '' || /[\r\n]/.test(p))) {
      throw new DomainError('VALIDATION_ERROR', 'Invalid target.path: give one or more heading names.');
    }
    const fm = FRONTMATTER.exec(text)?.[0].length ?? 0;
    const r = findHeading(text, fm, t.path);
    if ('found' in r) span = headingSpan(r.found, text);
    else if (op.createTarget) return createHeadings(text, r.parent, r.missing, content, eol);
    else span = null;
  } else span = locateTarget(text, t);
  if (!span) {
    const what =
      t.type === 'heading' ? `heading ${JSON.stringify(t.path)}` : `block ^${(t as { id: string }).id}`;
    throw new DomainError('TARGET_NOT_FOUND', `No ${what} in this note.`);
  }
  if (op.operation === 'replace') return replaceSpan(text, span, content, eol, t.type === 'block');
  if (t.type === 'document' && op.operation === 'append') {
    return insertLines(text, text.length, content, eol);
  }
  return insertLines(text, op.operation === 'append' ? span.tail : span.head, content, eol);
}

/** Appends the missing headings (and the content under the last) at the end of the parent section. */
function createHeadings(
  text: string,
  parent: HeadingInfo | null,
  missing: string[],
  content: string,
  eol: string,
): string {
  const base = parent?.level ?? 0;
  if (base + missing.length > 6)
    throw new DomainError('VALIDATION_ERROR', 'Headings go 6 levels deep at most.');
  const lines = missing.map((name, i) => `${'#'.repeat(base + i + 1)} ${name.trim()}`);
  if (content !== '') lines.push(content.replace(/\r?\n$/, ''));
  const at = parent ? contentEnd(text, parent.bodyStart, parent.sectionEnd) : text.length;
  return insertLines(text, at, lines.join('\n'), eol);
}
