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
  const budget: Budget = { perAddress: new Map(), total: 0, limits };
  return {
    /** Opens a request for `address`: 429 when it already has `maxOpenPerClient` open. */
    open(address: string | undefined): DoorLease {
      const key = address ?? 'unknown';
      let slot = budget.perAddress.get(key);
      if (!slot) {
        slot = { open: 0, bytes: 0 };
        budget.perAddress.set(key, slot);
      }
      if (slot.open >= limits.maxOpenPerClient)
        throw retryLater('RATE_LIMITED', 'Too many requests open from this address; retry shortly.', 1);
      slot.open += 1;
      return new Lease(budget, key, slot);
    },
    /** Body bytes in flight on this instance. */
    inflight: () => budget.total,
    /** Addresses with a request open (the map never holds more). */
    addresses: () => budget.perAddress.size,
  };
}

interface Slot {
  open: number;
  bytes: number;
}

interface Budget {
  perAddress: Map<string, Slot>;
  total: number;
  limits: RelayLimits;
}

/** One request's hold on the budgets (a class: a proxied request makes no closures for it). */
class Lease implements DoorLease {
  #bytes = 0;
  #released = false;
  constructor(
    readonly budget: Budget,
    readonly key: string,
    readonly slot: Slot,
  ) {}

  reserve(n: number): void {
    if (this.#released || n <= 0) return;
    const { budget, slot } = this;
    if (slot.bytes + n > budget.limits.maxInflightBytesPerClient)
      throw retryLater(
        'RATE_LIMITED',
        'Too many request-body bytes in flight from this address; retry shortly.',
        1,
      );
    if (budget.total + n > budget.limits.maxInflightBytes)
      throw retryLater('NOT_READY', 'The relay has too many request bodies in flight; retry shortly.', 1);
    slot.bytes += n;
    budget.total += n;
    this.#bytes += n;
  }

  held(): number {
    return this.#bytes;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    const { budget, slot } = this;
    slot.bytes -= this.#bytes;
    budget.total -= this.#bytes;
    slot.open -= 1;
    if (slot.open === 0 && budget.perAddress.get(this.key) === slot) budget.perAddress.delete(this.key);
  }
}

/** The 408 a body that did not arrive within `ms` gets. */
export const bodyTimeout = (ms: number) =>
  new DomainError(
    'REQUEST_TIMEOUT',
    `The request body did not arrive within ${ms} ms; the relay closed the request.`,
  );
