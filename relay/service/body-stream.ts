import { DomainError } from '../../core/errors.ts';
import { concat } from '../protocol/frames.ts';
import { WIRE_LIMITS } from '../protocol/limits.ts';
import { bodyTimeout, type DoorLease } from './door-budget.ts';

/** How a request body is read at the door. */
export interface BodyReadOptions {
  /** Largest body (413 above). */
  maxBytes: number;
  /** Epoch ms by which the whole body must have arrived (408 after). */
  deadline: number;
  /** The longest time allowed, for the 408's message. */
  timeoutMs: number;
  now: () => number;
  /** Bytes are reserved chunk by chunk here unless the declared length was reserved up front. */
  lease: DoorLease;
  reserveAsRead: boolean;
}

const tooLarge = (max: number) =>
  new DomainError('PAYLOAD_TOO_LARGE', `The request body is larger than ${max} bytes.`);

/**
 * A request body as chunks of at most one DATA frame each, read only as fast as the consumer
 * asks (so a slow tunnel slows the client through TCP, nothing piles up here). Throws 408
 * REQUEST_TIMEOUT when the body is not complete by the deadline, 413 past `maxBytes`, 429/503
 * when a chunked body outgrows the door's byte budgets. The reader is left pending on a
 * time-out rather than cancelled, so the socket stays open for the 408 (the runtime drains or
 * closes it after the answer).
 */
export async function* bodyChunks(
  stream: ReadableStream<Uint8Array>,
  opts: BodyReadOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = stream.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(bodyTimeout(opts.timeoutMs)), Math.max(1, opts.deadline - opts.now()));
  });
  late.catch(() => undefined);
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) return;
      if (!value?.byteLength) continue;
      size += value.byteLength;
      if (size > opts.maxBytes) throw tooLarge(opts.maxBytes);
      if (opts.reserveAsRead) opts.lease.reserve(value.byteLength);
      for (let at = 0; at < value.byteLength; at += WIRE_LIMITS.maxChunkBytes)
        yield value.subarray(at, Math.min(value.byteLength, at + WIRE_LIMITS.maxChunkBytes));
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The whole body (for servers reached through the queue, whose items are whole), under the same rules. */
export async function readBody(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const c of chunks) {
    parts.push(c.slice());
    size += c.byteLength;
  }
  return size ? concat(parts, size) : null;
}
