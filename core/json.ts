import { DomainError } from './errors.ts';

/** Parse-JSON-or-throw, the one copy: `JSON.parse(text)`, or the error `fail` makes when it is not JSON. */
export function parseJsonOr(text: string, fail: () => Error): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw fail();
  }
}

/** A request body's JSON: 400 INVALID_JSON when it is not JSON. */
export const parseJsonBody = (text: string): unknown =>
  parseJsonOr(text, () => new DomainError('INVALID_JSON', 'The request body is not valid JSON.'));
