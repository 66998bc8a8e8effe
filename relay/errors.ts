import { DomainError } from '../core/errors.ts';

/** A DomainError whose answer carries `Retry-After: <seconds>` (rounded up, at least 1). */
export function retryLater(
  code: 'RATE_LIMITED' | 'NOT_READY',
  message: string,
  seconds: number,
): DomainError {
  return Object.assign(new DomainError(code, message), { retryAfter: Math.max(1, Math.ceil(seconds)) });
}

/** The Retry-After seconds attached by `retryLater`, if any. */
export function retryAfterOf(err: unknown): number | undefined {
  const s = (err as { retryAfter?: unknown } | null)?.retryAfter;
  return typeof s === 'number' ? s : undefined;
}
