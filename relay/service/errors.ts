import { DomainError } from '../../core/errors.ts';

/** A DomainError whose answer carries `Retry-After: <seconds>` (rounded up, at least 1). */
export function retryLater(
  code: 'RATE_LIMITED' | 'NOT_READY',
  message: string,
  seconds: number,
): DomainError {
  return new DomainError(code, message, undefined, seconds);
}
