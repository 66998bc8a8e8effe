/**
 * Frontmatter the server writes must read back: a value the reader would ignore (a block larger
 * than it takes, YAML it cannot parse, nesting deeper than the JSON limit) is refused with 400
 * VALIDATION_ERROR before anything is written.
 */
import { DomainError } from '../errors.ts';
import { checkJsonDepth, MAX_JSON_DEPTH } from '../json-depth.ts';
import { parseFrontmatter, splitFrontmatter } from './markdown/parts.ts';

/** The problems the reader reports for the frontmatter block of `text` (none without a block). */
export function frontmatterProblems(text: string): string[] {
  const block = splitFrontmatter(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).block;
  if (!block) return [];
  const yaml = block.replace(/^---[ \t]*\r?\n/, '').replace(/(^|\r?\n)---[ \t]*(\r?\n)?$/, '$1');
  const warnings: string[] = [];
  parseFrontmatter(yaml, warnings);
  return warnings;
}

/**
 * Throws VALIDATION_ERROR when the frontmatter of `next` would not read back, unless `before`
 * (the note as it was) had the same problem already: a write that leaves a damaged block alone
 * is not refused for it.
 */
export function checkFrontmatterReadsBack(next: string, before = ''): void {
  const problems = frontmatterProblems(next);
  if (!problems.length) return;
  const old = new Set(frontmatterProblems(before));
  const fresh = problems.filter((p) => !old.has(p));
  if (fresh.length) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `The frontmatter would not read back, so it was not written: ${fresh[0]}`,
    );
  }
}

/** The depth check of a frontmatter value or a PATCH value given as JSON. */
export const checkValueDepth = (value: unknown, what: string): void => checkJsonDepth(value, what);

/** Frontmatter given as a value may weigh at most this many characters: what the reader parses. */
export const FRONTMATTER_MAX_BYTES = 64 * 1024;
/** ...and hold at most this many keys and array items, all levels together. */
export const FRONTMATTER_MAX_KEYS = 500;

const tooLarge = (what: string, limit: 'bytes' | 'keys' | 'depth', max: number, text: string) =>
  new DomainError('FRONTMATTER_TOO_LARGE', `${what} ${text}.`, { limit, max });

/**
 * Throws 400 FRONTMATTER_TOO_LARGE (`details.limit` names it: `keys`, `bytes` or `depth`) when a
 * frontmatter value given as JSON (a whole frontmatter, or one key's value in a PATCH) is past the
 * limits. It runs before any YAML is made: that, and reading it back, cost seconds for 600,000
 * keys, where this stops at the first object with too many keys (and visits at most
 * FRONTMATTER_MAX_KEYS values otherwise). The size is an estimate of the YAML (keys, strings, 8
 * per other scalar); the read-back check still refuses what ends up larger.
 */
export function checkFrontmatterLimits(value: unknown, what: string): void {
  let keys = 0;
  let bytes = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') bytes += v.length + 2;
    else if (v === null || typeof v !== 'object') bytes += 8;
    else {
      if (depth >= MAX_JSON_DEPTH)
        throw tooLarge(
          what,
          'depth',
          MAX_JSON_DEPTH,
          `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
        );
      const names = Array.isArray(v) ? null : Object.keys(v);
      keys += names ? names.length : (v as unknown[]).length;
      if (keys > FRONTMATTER_MAX_KEYS)
        throw tooLarge(
          what,
          'keys',
          FRONTMATTER_MAX_KEYS,
          `has more than ${FRONTMATTER_MAX_KEYS} keys and items`,
        );
      if (names) {
        for (const k of names) {
          bytes += k.length + 4;
          stack.push([(v as Record<string, unknown>)[k], depth + 1]);
        }
      } else for (const item of v as unknown[]) stack.push([item, depth + 1]);
    }
    if (bytes > FRONTMATTER_MAX_BYTES)
      throw tooLarge(
        what,
        'bytes',
        FRONTMATTER_MAX_BYTES,
        `is larger than ${FRONTMATTER_MAX_BYTES / 1024} KiB`,
      );
  }
}
