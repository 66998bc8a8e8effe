import type { Nodes, Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { parseDocument } from 'yaml';

/** How a link was written. */
export type LinkKind = 'wikilink' | 'embed' | 'markdown';

/** One link occurrence as written in a note, with its place in the raw text. */
export interface LinkOccurrence {
  /** The note reference as written, without heading or alias (`folder/Note`, `../a.md`). */
  target: string;
  kind: LinkKind;
  heading?: string;
  alias?: string;
  /** Offsets in the raw file text of the whole link (`[[...]]`, `![[...]]` or `[...](...)`). */
  start: number;
  end: number;
}

/** Everything the index needs from one note's text. Pure data, serializable. */
export interface MarkdownAnalysis {
  frontmatter: Record<string, unknown>;
  /** Offset in the raw text where the body starts (0 without frontmatter). */
  bodyStart: number;
  /** Title from frontmatter or the first level-1 heading; null means "use the file name". */
  title: string | null;
  tags: string[];
  /** Every note link occurrence in document order (code excluded, external URLs excluded). */
  links: LinkOccurrence[];
  wordCount: number;
  /** Frontmatter `created` as ISO 8601 when it is a valid date. */
  created: string | null;
  warnings: string[];
  /** Plain text of the body, for full-text search. */
  text: string;
}

/** The one markdown pipeline, built once. */
const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).freeze();

const FRONTMATTER = /^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;
const WIKILINK = /(!?)\[\[([^[\]\n]+?)\]\]/g;
const PLACEHOLDER = /\uE000(\d+)\uE001/g;
const INLINE_TAG = /(^|[\s([{,;])#([\p{L}\p{N}_\-/]+)/gu;
const WORD =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}'’_-]*[\p{L}\p{N}\p{M}])?/gu;
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

interface Wiki {
  occ: LinkOccurrence;
  /** The link exactly as written. */
  raw: string;
  /** Text a reader sees: alias, else the target (with heading). */
  display: string;
}

function parseWikiInner(inner: string, embed: boolean, start: number, end: number): Wiki {
  let ref = inner;
  let alias: string | undefined;
  const bar = ref.indexOf('|');
  if (bar >= 0) {
    alias = ref.slice(bar + 1).trim();
    ref = ref.slice(0, bar);
  }
  let heading: string | undefined;
  const hash = ref.indexOf('#');
  if (hash >= 0) {
    heading = ref.slice(hash + 1).trim();
    ref = ref.slice(0, hash);
  }
  const occ: LinkOccurrence = { target: ref.trim(), kind: embed ? 'embed' : 'wikilink', start, end };
  if (heading) occ.heading = heading;
  if (alias) occ.alias = alias;
  return { occ, raw: '', display: alias || inner.replace(/\|.*$/, '').trim() };
}

function normalizeTag(raw: string): string | null {
  const t = raw.trim().replace(/^#+/, '');
  if (!t || /\s/.test(t) || /^[\d/_-]+$/.test(t)) return null;
  return t;
}

function frontmatterTags(fm: Record<string, unknown>, warnings: string[]): string[] {
  const out: string[] = [];
  for (const key of ['tags', 'tag']) {
    const v = fm[key];
    if (v === undefined || v === null) continue;
    const items: unknown[] = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\s]+/) : [v];
    for (const item of items) {
      if (typeof item === 'string' || typeof item === 'number') {
        const s = String(item);
        if (s.trim() === '') continue;
        const t = normalizeTag(s);
        if (t) out.push(t);
        else warnings.push(`Frontmatter ${key} entry "${s}" is not a valid tag and was ignored.`);
      } else warnings.push(`Frontmatter ${key} has an entry that is not text and was ignored.`);
    }
  }
  return out;
}

function parseFrontmatter(yamlText: string, warnings: string[]): Record<string, unknown> {
  try {
    const doc = parseDocument(yamlText, { uniqueKeys: false, logLevel: 'silent' });
    const problem = doc.errors[0];
    if (problem) {
      warnings.push(`Invalid YAML frontmatter was ignored: ${problem.message.split('\n')[0]}`);
      return {};
    }
    for (const w of doc.warnings) warnings.push(`Frontmatter: ${w.message.split('\n')[0]}`);
    const v: unknown = doc.toJS({ maxAliasCount: 100 });
    if (v === null || v === undefined) return {};
    if (typeof v !== 'object' || Array.isArray(v)) {
      warnings.push('Frontmatter is not a key/value map and was ignored.');
      return {};
    }
    return v as Record<string, unknown>;
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : 'unknown error';
    warnings.push(`Invalid YAML frontmatter was ignored: ${msg}`);
    return {};
  }
}

function validDate(v: unknown): string | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v)) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/**
 * Analyzes one note's raw text. Never throws for any input: problems become warnings.
 * Wiki-links are lifted out before parsing (CommonMark has no syntax for them), and put back
 * only where the parser saw text, so `[[x]]` inside code is not a link.
 */
export function analyzeMarkdown(raw: string): MarkdownAnalysis {
  const warnings: string[] = [];
  const fmMatch = FRONTMATTER.exec(raw);
  const bodyStart = fmMatch ? fmMatch[0].length : 0;
  const wikis: Wiki[] = [];
  // After each placeholder, offsets in the substituted text are `delta` behind the raw text.
  const shifts: { after: number; delta: number }[] = [];
  let delta = 0;
  const body = raw.slice(bodyStart).replace(WIKILINK, (m, bang: string, inner: string, off: number) => {
    const start = bodyStart + off;
    const ph = `\uE000${wikis.length}\uE001`;
    const w = parseWikiInner(inner, bang === '!', start, start + m.length);
    w.raw = m;
    wikis.push(w);
    const substStart = start - delta;
    delta += m.length - ph.length;
    shifts.push({ after: substStart + ph.length, delta });
    return ph;
  });
  const toRaw = (offset: number): number => {
    let d = 0;
    for (const s of shifts) {
      if (s.after > offset) break;
      d = s.delta;
    }
    return offset + d;
  };

  let tree: Root;
  try {
    tree = processor.parse(raw.slice(0, bodyStart) + body);
  } catch {
    warnings.push('The markdown could not be parsed; only the file name is used.');
    return {
      frontmatter: {},
      bodyStart,
      title: null,
      tags: [],
      links: [],
      wordCount: 0,
      created: null,
      warnings,
      text: '',
    };
  }

  let frontmatter: Record<string, unknown> = {};
  const first = tree.children[0];
  if (first?.type === 'yaml') {
    const yamlText = first.value.replace(PLACEHOLDER, (_m, i: string) => wikis[Number(i)]?.raw ?? '');
    frontmatter = parseFrontmatter(yamlText, warnings);
  }

  const tags = frontmatterTags(frontmatter, warnings);
  const links: LinkOccurrence[] = [];
  const definitions = new Map<string, string>();
  const textParts: string[] = [];
  let h1: string | null = null;

  const expand = (value: string, onWiki?: (w: Wiki) => void): string =>
    value.replace(PLACEHOLDER, (_m, i: string) => {
      const w = wikis[Number(i)];
      if (!w) return '';
      onWiki?.(w);
      return w.display;
    });

  const plain = (node: Nodes): string => {
    if (node.type === 'text') return expand(node.value);
    if (node.type === 'inlineCode') return node.value;
    if ('children' in node) return node.children.map((c) => plain(c as Nodes)).join('');
    return '';
  };

  const walk = (node: Nodes, inLink: boolean): void => {
    switch (node.type) {
      case 'code':
      case 'inlineCode':
      case 'html':
      case 'yaml':
        return;
      case 'definition':
        definitions.set(node.identifier, node.url);
        return;
      case 'text': {
        const value = expand(node.value, (w) => links.push(w.occ));
        textParts.push(value);
        if (!inLink) {
          for (const m of value.matchAll(INLINE_TAG)) {
            const t = normalizeTag(m[2] ?? '');
            if (t) tags.push(t);
          }
        }
        return;
      }
      case 'heading':
        if (node.depth === 1 && h1 === null) h1 = plain(node).trim() || null;
        break;
      case 'link':
        pushMarkdownLink(node.url, node);
        break;
    }
    if ('children' in node) {
      for (const child of node.children)
        walk(child as Nodes, inLink || node.type === 'link' || node.type === 'linkReference');
      if (node.type === 'paragraph' || node.type === 'heading' || node.type === 'tableCell')
        textParts.push('\n');
    }
  };

  const pendingRefs: { id: string; node: Nodes }[] = [];
  const pushMarkdownLink = (url: string, node: Nodes): void => {
    if (!url || EXTERNAL.test(url) || url.startsWith('#')) return;
    let target = url;
    let heading: string | undefined;
    const hash = target.indexOf('#');
    if (hash >= 0) {
      heading = target.slice(hash + 1);
      target = target.slice(0, hash);
    }
    try {
      target = decodeURIComponent(target);
    } catch {
      // keep as written when it is not valid percent-encoding
    }
    const last = target.slice(target.lastIndexOf('/') + 1);
    if (last.includes('.') && !last.toLowerCase().endsWith('.md')) return; // an attachment, not a note
    const start = toRaw(node.position?.start.offset ?? 0);
    const end = toRaw(node.position?.end.offset ?? 0);
    const occ: LinkOccurrence = { target, kind: 'markdown', start, end };
    if (heading) occ.heading = heading;
    links.push(occ);
  };

  const collectRefs = (node: Nodes): void => {
    if (node.type === 'linkReference') pendingRefs.push({ id: node.identifier, node });
    if (node.type === 'code' || node.type === 'inlineCode') return;
    if ('children' in node) for (const c of node.children) collectRefs(c as Nodes);
  };

  walk(tree, false);
  collectRefs(tree);
  for (const { id, node } of pendingRefs) {
    const url = definitions.get(id);
    if (url) pushMarkdownLink(url, node);
  }
  links.sort((a, b) => a.start - b.start);

  const text = textParts.join(' ');
  const wordCount = text.match(WORD)?.length ?? 0;
  const fmTitle = frontmatter.title;
  const title =
    (typeof fmTitle === 'string' && fmTitle.trim()) ||
    (typeof fmTitle === 'number' ? String(fmTitle) : null) ||
    h1;

  const seen = new Set<string>();
  const uniqueTags = tags.filter((t) => {
    const k = t.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });

  return {
    frontmatter,
    bodyStart,
    title: title || null,
    tags: uniqueTags,
    links,
    wordCount,
    created: validDate(frontmatter.created),
    warnings,
    text,
  };
}

/** Splits raw text into its frontmatter block (fences included, may be '') and the body. */
export function splitFrontmatter(raw: string): { block: string; body: string } {
  const m = FRONTMATTER.exec(raw);
  const n = m ? m[0].length : 0;
  return { block: raw.slice(0, n), body: raw.slice(n) };
}
