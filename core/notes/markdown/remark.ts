import type { Nodes, Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import './micromark-linear.ts';
import { parseComplexity } from './guard.ts';
import {
  analysisOf,
  FRONTMATTER,
  frontmatterTags,
  INLINE_TAG,
  liftSpans,
  markdownLink,
  normalizeTag,
  parseFrontmatter,
  parseWikiInner,
  type Wiki,
} from './parts.ts';
import { analyzePlain } from './plain.ts';
import type { LinkOccurrence, MarkdownAnalysis } from './types.ts';

/** The one markdown pipeline, built once. */
const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).freeze();
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/**
 * Analyzes one note's raw text. Never throws for any input: problems become warnings.
 * Wiki-links are lifted out before parsing (CommonMark has no syntax for them), and put back
 * only where the parser saw text, so `[[x]]` inside code is not a link. Notes too large or too
 * convoluted for the parser (its time grows faster than linearly on some shapes) are read by
 * `analyzePlain` instead, with a warning saying why.
 */
export function analyzeMarkdown(raw: string): MarkdownAnalysis {
  const reason = parseComplexity(raw, FRONTMATTER.exec(raw)?.[0].length ?? 0);
  if (reason) return analyzePlain(raw, [`This note is indexed as plain text: ${reason}.`]);
  try {
    return analyzeParsed(raw);
  } catch {
    return analyzePlain(raw, ['The markdown could not be parsed; the note is indexed as plain text.']);
  }
}

function analyzeParsed(raw: string): MarkdownAnalysis {
  const warnings: string[] = [];
  const fmMatch = FRONTMATTER.exec(raw);
  const bodyStart = fmMatch ? fmMatch[0].length : 0;
  const wikis: (Wiki | undefined)[] = [];
  // After each placeholder, offsets in the substituted text are `delta` behind the raw text.
  const shifts: { after: number; delta: number }[] = [];
  let delta = 0;
  // Wiki-links, and Obsidian's comments and block ids (which read as nothing), become placeholders.
  const pieces: string[] = [];
  let copied = bodyStart;
  for (const l of liftSpans(raw, bodyStart, parseWikiInner)) {
    const ph = `\uE000${wikis.length}\uE001`;
    wikis.push(l.wiki);
    pieces.push(raw.slice(copied, l.start), ph);
    const substStart = l.start - delta;
    delta += l.end - l.start - ph.length;
    shifts.push({ after: substStart + ph.length, delta });
    copied = l.end;
  }
  pieces.push(raw.slice(copied));
  const body = pieces.join('');
  const toRaw = (offset: number): number => {
    // The last shift at or before `offset` (binary search: notes may hold many links).
    let lo = 0;
    let hi = shifts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (shifts[mid]!.after <= offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + (lo > 0 ? shifts[lo - 1]!.delta : 0);
  };

  const tree: Root = processor.parse(raw.slice(0, bodyStart) + body);

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
      case 'image':
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
    const start = toRaw(node.position?.start.offset ?? 0);
    const end = toRaw(node.position?.end.offset ?? 0);
    const occ = markdownLink(url, start, end);
    if (occ) links.push(occ);
  };

  const collectRefs = (node: Nodes): void => {
    if (node.type === 'linkReference' || node.type === 'imageReference')
      pendingRefs.push({ id: node.identifier, node });
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

  return analysisOf({ frontmatter, bodyStart, h1, tags, links, warnings, text: textParts.join(' ') });
}

// Here too for the callers that parse with remark: the function itself is in parts.ts, so that the
// writes reach it without loading the parser.
export { splitFrontmatter } from './parts.ts';
