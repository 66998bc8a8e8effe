import { DomainError } from '../../core/errors.ts';
import { retryLater } from './errors.ts';
import type { RelayLimits } from './types.ts';

/** One proxied request's hold on the door's budgets: released exactly once when it ends. */
export interface DoorLease {
  /** Reserves `n` more body bytes for this request; throws 429/503 when a budget is full. */
  reserve(n: number): void;
  /** Body bytes this request holds. */
  held(): number;
  /** Gives back its place and its bytes (idempotent). */
  release(): void;
}

/**
 * The budgets the relay's door keeps in memory (per instance): requests open per client
 * address, request-body bytes in flight per address and for the whole instance. A request's
 * body bytes count from the moment they are reserved (its declared Content-Length before a
 * byte is read, or each chunk of a chunked body as it arrives) until its answer comes or it
 * fails, so what the relay or a server end holds for unanswered bodies stays bounded.
 */
export function doorBudget(limits: RelayLimits) {
  const perAddress = new Map<string, { open: number; bytes: number }>();
  let total = 0;

  return {
    /** Opens a request for `address`: 429 when it already has `maxOpenPerClient` open. */
    open(address: string | undefined): DoorLease {
      const key = address ?? 'unknown';
      let slot = perAddress.get(key);
      if (!slot) {
        slot = { open: 0, bytes: 0 };
        perAddress.set(key, slot);
      }
      if (slot.open >= limits.maxOpenPerClient)
        throw retryLater('RATE_LIMITED', 'Too many requests open from this address; retry shortly.', 1);
      slot.open += 1;
      const mine = slot;
      let bytes = 0;
      let released = false;
      return {
        reserve(n) {
          if (released || n <= 0) return;
          if (mine.bytes + n > limits.maxInflightBytesPerClient)
            throw retryLater(
              'RATE_LIMITED',
              'Too many request-body bytes in flight from this address; retry shortly.',
              1,
            );
          if (total + n > limits.maxInflightBytes)
            throw retryLater(
              'NOT_READY',
              'The relay has too many request bodies in flight; retry shortly.',
              1,
            );
          mine.bytes += n;
          total += n;
          bytes += n;
        },
        held: () => bytes,
        release() {
          if (released) return;
          released = true;
          mine.bytes -= bytes;
          total -= bytes;
          mine.open -= 1;
          if (mine.open === 0 && perAddress.get(key) === mine) perAddress.delete(key);
        },
      };
    },
    /** Body bytes in flight on this instance. */
    inflight: () => total,
    /** Addresses with a request open (the map never holds more). */
    addresses: () => perAddress.size,
  };
}

/** The 408 a body that did not arrive within `ms` gets. */
export const bodyTimeout = (ms: number) =>
  new DomainError(
    'REQUEST_TIMEOUT',
    `The request body did not arrive within ${ms} ms; the relay closed the request.`,
  );
