import { DomainError } from '../errors.ts';

/** True when an `If-Match` header value matches `checksum`. */
export function ifMatchHolds(ifMatch: string | undefined, checksum: string): boolean {
  if (ifMatch === undefined) return true;
  return ifMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((t) => t === '*' || t === checksum);
}

/** Throws 412 `PRECONDITION_FAILED` (with the current checksum) unless `ifMatch` holds. */
export function checkIfMatch(ifMatch: string | undefined, checksum: string): void {
  if (ifMatchHolds(ifMatch, checksum)) return;
  throw new DomainError('PRECONDITION_FAILED', 'The note changed since you read it; reload and retry.', {
    checksum,
  });
}
