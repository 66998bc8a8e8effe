/**
 * The one table of wire limits. The relay enforces them at its door (431, 414, 413) before
 * anything is queued, and the connector checks the same numbers on what it receives, so a
 * request the relay accepted can never be refused later for a limit (and take others with it).
 */
export const WIRE_LIMITS = {
  /** Most header fields of a relayed request or answer, the relay's own forwarding headers included. */
  maxHeaders: 256,
  /** Room the relay keeps for the forwarding headers it adds (X-Forwarded-*). */
  forwardHeaders: 4,
  /** Longest single header value, in bytes. */
  maxHeaderValueBytes: 16_384,
  /** All header names and values of one request together, in bytes. */
  maxHeaderBytes: 64 * 1024,
  /** Longest path plus query below `/r/<serverId>`, in bytes (414 above). */
  maxUrlBytes: 8_192,
  /** Default largest body, in bytes (RELAY_MAX_BODY_BYTES changes it; 413 above). */
  maxBodyBytes: 10 * 1024 * 1024,
  /** Largest tunnel frame payload carrying part of a body, in bytes (bodies are split into chunks). */
  maxChunkBytes: 64 * 1024,
  /** Largest tunnel frame of any kind, in bytes (a head frame holds at most the headers above). */
  maxFrameBytes: 256 * 1024,
} as const;

/** Which limit a request breaks, with the status the relay answers; null when it fits. */
export type LimitBreach = { status: 431 | 414; code: 'HEADERS_TOO_LARGE' | 'URI_TOO_LONG'; message: string };

/** Checks a request's target and header pairs against `WIRE_LIMITS` (the body is checked as it streams). */
export function checkRequestHead(target: string, headers: [string, string][]): LimitBreach | null {
  if (utf8Length(target) > WIRE_LIMITS.maxUrlBytes)
    return {
      status: 414,
      code: 'URI_TOO_LONG',
      message: `The path and query are longer than the relay's limit of ${WIRE_LIMITS.maxUrlBytes} bytes.`,
    };
  const maxCount = WIRE_LIMITS.maxHeaders - WIRE_LIMITS.forwardHeaders;
  if (headers.length > maxCount)
    return headersTooLarge(`The request has ${headers.length} header fields; the relay accepts ${maxCount}.`);
  let total = 0;
  for (const [k, val] of headers) {
    const n = utf8Length(val);
    if (n > WIRE_LIMITS.maxHeaderValueBytes)
      return headersTooLarge(
        `A header value is longer than the relay's limit of ${WIRE_LIMITS.maxHeaderValueBytes} bytes.`,
      );
    total += k.length + n + 4;
  }
  if (total > WIRE_LIMITS.maxHeaderBytes)
    return headersTooLarge(
      `The headers are larger than the relay's limit of ${WIRE_LIMITS.maxHeaderBytes} bytes.`,
    );
  return null;
}

const headersTooLarge = (message: string): LimitBreach => ({
  status: 431,
  code: 'HEADERS_TOO_LARGE',
  message,
});

/** Byte length of `s` in UTF-8, without encoding it. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) n += c > 0x7ff ? (c >= 0xd800 && c <= 0xdfff ? 1 : 2) : 1;
  }
  return n;
}
