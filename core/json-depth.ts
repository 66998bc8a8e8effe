/**
 * The one nesting limit of JSON values the server accepts, on every path (REST bodies, MCP
 * messages and tool arguments, the agent's tool calls, frontmatter and PATCH values in the core).
 * Checked without recursion, so a value nested far deeper than the limit cannot exhaust the stack.
 */
import { DomainError } from './errors.ts';

/** JSON values (objects and arrays) may nest at most this deep (docs/reference/security.md). */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of `value`, counting up to `limit + 1` at most (a scalar is 0, `[]` is 1). */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth]);
    }
  }
  return deepest;
}

/** Throws VALIDATION_ERROR (400) when `value` nests deeper than MAX_JSON_DEPTH; `what` names it. */
export function checkJsonDepth(value: unknown, what = 'The request'): void {
  if (jsonDepth(value) > MAX_JSON_DEPTH) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `${what} nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`,
    );
  }
}
