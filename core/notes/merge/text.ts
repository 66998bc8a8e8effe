/**
 * The three-way merge of a note's text: the frontmatter key by key, the body by lines, then by
 * words inside the lines both sides changed. What still overlaps keeps the current side in the
 * note; the caller keeps the writer's whole text elsewhere (docs/reference/merge.md).
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { splitFrontmatter } from '../markdown/parts.ts';
import { diff3, type Region } from './diff3.ts';

/** What a merge made: the text to write and how many regions overlapped (kept as `theirs`). */
export interface TextMerge {
  text: string;
  conflicts: number;
  /** Frontmatter keys both sides set differently (the current value was kept). */
  conflictKeys: string[];
}

const WORDS = /\s+|[^\s]+/g;
const words = (lines: string[]) => lines.join('\n').match(WORDS) ?? [];

/** Joins merged regions; an overlapping one keeps `theirs` and is counted. */
function settle<T>(
  regions: Region<T>[],
  onConflict: (c: { base: T[]; ours: T[]; theirs: T[] }) => T[] | null,
) {
  const out: T[] = [];
  let conflicts = 0;
  for (const r of regions) {
    if ('ok' in r) {
      out.push(...r.ok);
      continue;
    }
    const settled = onConflict(r.conflict);
    if (settled) out.push(...settled);
    else {
      conflicts++;
      out.push(...r.conflict.theirs);
    }
  }
  return { out, conflicts };
}

/** The body by lines; a region both sides changed is tried again word by word. */
function mergeBody(base: string, ours: string, theirs: string): { text: string; conflicts: number } {
  const regions = diff3(base.split('\n'), ours.split('\n'), theirs.split('\n'));
  const { out, conflicts } = settle(regions, (c) => {
    const fine = diff3(words(c.base), words(c.ours), words(c.theirs));
    if (fine.some((r) => !('ok' in r))) return null;
    return fine
      .flatMap((r) => ('ok' in r ? r.ok : []))
      .join('')
      .split('\n');
  });
  return { text: out.join('\n'), conflicts };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parsed frontmatter block, or null when it is not a YAML mapping. */
function yamlOf(block: string): Record<string, unknown> | null {
  if (block === '') return {};
  try {
    const inner = block.replace(/^---[ \t]*\r?\n/, '').replace(/\r?\n?---[ \t]*(?:\r?\n)?$/, '');
    const v = parseYaml(inner);
    return v === null || v === undefined ? {} : isObject(v) ? v : null;
  } catch {
    return null;
  }
}

const json = (v: unknown) => JSON.stringify(v);

/** The frontmatter: one side's block when only it changed; otherwise merged key by key. */
function mergeFrontmatter(
  base: string,
  ours: string,
  theirs: string,
): { block: string; conflictKeys: string[]; whole: boolean } {
  if (ours === base || ours === theirs) return { block: theirs, conflictKeys: [], whole: false };
  if (theirs === base) return { block: ours, conflictKeys: [], whole: false };
  const [o, a, b] = [yamlOf(base), yamlOf(ours), yamlOf(theirs)];
  // A block that is not a mapping cannot be merged by key: the current one stays.
  if (!o || !a || !b) return { block: theirs, conflictKeys: [], whole: true };
  const merged: Record<string, unknown> = {};
  const conflictKeys: string[] = [];
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const [ov, av, bv] = [json(o[key]), json(a[key]), json(b[key])];
    const pick = av === ov ? b : bv === ov || av === bv ? a : b;
    if (av !== ov && bv !== ov && av !== bv) conflictKeys.push(key);
    if (key in pick) merged[key] = pick[key];
  }
  // The same result by lines keeps the writers' own formatting and comments.
  const byLines = diff3(base.split('\n'), ours.split('\n'), theirs.split('\n'));
  if (!conflictKeys.length && byLines.every((r) => 'ok' in r)) {
    const text = byLines.flatMap((r) => ('ok' in r ? r.ok : [])).join('\n');
    const back = yamlOf(text);
    if (back && json(back) === json(merged)) return { block: text, conflictKeys, whole: false };
  }
  if (!Object.keys(merged).length) return { block: '', conflictKeys, whole: false };
  return { block: `---\n${stringifyYaml(merged)}---\n`, conflictKeys, whole: false };
}

/** Merges `ours` (the writer's text) and `theirs` (the note now), both made from `base`. */
export function mergeText(base: string, ours: string, theirs: string): TextMerge {
  if (ours === base || ours === theirs) return { text: theirs, conflicts: 0, conflictKeys: [] };
  if (theirs === base) return { text: ours, conflicts: 0, conflictKeys: [] };
  const [o, a, b] = [splitFrontmatter(base), splitFrontmatter(ours), splitFrontmatter(theirs)];
  const fm = mergeFrontmatter(o.block, a.block, b.block);
  const body = mergeBody(o.body, a.body, b.body);
  return {
    text: fm.block + body.text,
    conflicts: body.conflicts + fm.conflictKeys.length + (fm.whole ? 1 : 0),
    conflictKeys: fm.conflictKeys,
  };
}
