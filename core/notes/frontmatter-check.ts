/**
 * Frontmatter the server writes must read back: a value the reader would ignore (a block larger
 * than it takes, YAML it cannot parse, nesting deeper than the JSON limit) is refused with 400
 * VALIDATION_ERROR before anything is written.
 */
import { DomainError } from '../errors.ts';
import { checkJsonDepth } from '../json-depth.ts';
import { parseFrontmatter } from './markdown/parts.ts';
import { splitFrontmatter } from './markdown/remark.ts';

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
