/**
 * The relay's wire protocol, shared by the relay and the server-side connector. Bodies are
 * JSON; HTTP bodies travel as base64 (bytes, not text); headers as ordered [name, value]
 * pairs so repeated headers (Set-Cookie) survive. See docs/reference/relay.md.
 */
import * as v from 'valibot';
import { WIRE_LIMITS } from './limits.ts';

/** A serverId: 3 to 128 of A-Z a-z 0-9 _ -, starting with a letter or digit. */
export const ServerId = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/, 'must be 3-128 of A-Z a-z 0-9 _ -'),
);
/** The server's relay secret: random, at least 32 characters. The relay keeps only its SHA-256. */
export const Secret = v.pipe(v.string(), v.minLength(32), v.maxLength(512));
/** SHA-256 hex of a pairing code. */
export const CodeHash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'));
const RequestId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{8,64}$/, 'must be a request id'));
const HeaderName = v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a header name'));
const HeaderValue = v.pipe(
  v.string(),
  v.regex(/^[^\r\n\0]*$/, 'must not hold CR, LF or NUL'),
  v.maxLength(WIRE_LIMITS.maxHeaderValueBytes),
);
/** Ordered header pairs; a name may repeat. */
export const HeaderPairs = v.pipe(
  v.array(v.tuple([HeaderName, HeaderValue])),
  v.maxLength(WIRE_LIMITS.maxHeaders),
);
/** Bytes as standard base64, or null for no body. */
export const Base64Body = v.nullable(
  v.pipe(
    v.string(),
    // Exactly what core/crypto.ts `fromBase64` decodes (padded, or without its padding).
    v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/, 'must be base64'),
  ),
);

/** A base64url Ed25519 public key (32 bytes). */
export const PublicKey = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url Ed25519 public key'),
);

/** The signed, timestamped, single-use statement of a register (core/identity.ts `registerStatement`). */
export const RegisterProof = v.object({
  /** The server's clock (epoch ms) when it signed; the relay accepts 2 minutes either way. */
  at: v.pipe(v.number(), v.integer()),
  nonce: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be 16-64 base64url characters')),
  signature: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{86}$/, 'must be a base64url Ed25519 signature')),
});

/**
 * POST /api/v1/relay/register. `serverId` must be the one `publicKey` names, `proof` signed by
 * its private key. `pairCodeHash`: absent keeps, null clears, a hash replaces.
 */
export const RegisterBody = v.object({
  serverId: ServerId,
  /** The session secret pull, respond and unregister will prove (the relay keeps its SHA-256). */
  secret: Secret,
  publicKey: PublicKey,
  proof: RegisterProof,
  pairCodeHash: v.optional(v.nullable(CodeHash)),
});

/** POST /api/v1/relay/unregister: the server is going away (its pin stays). */
export const UnregisterBody = v.object({ serverId: ServerId, secret: Secret });

/** POST /api/v1/relay/pull. `max` and `waitMs` are capped by the relay's limits. */
export const PullBody = v.object({
  serverId: ServerId,
  secret: Secret,
  max: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
  waitMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(120_000))),
});

/** The server's answer to an `http` item. */
export const HttpAnswer = v.object({
  kind: v.literal('http'),
  requestId: RequestId,
  status: v.pipe(v.number(), v.integer(), v.minValue(200), v.maxValue(599)),
  headers: HeaderPairs,
  body: Base64Body,
});

/** The server's answer to a `pair` item: a freshly minted device key, or null to refuse. */
export const PairAnswer = v.object({
  kind: v.literal('pair'),
  requestId: RequestId,
  apiKey: v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(1024))),
});

/** POST /api/v1/relay/respond: one or more answers. */
export const RespondBody = v.object({
  serverId: ServerId,
  secret: Secret,
  responses: v.pipe(v.array(v.variant('kind', [HttpAnswer, PairAnswer])), v.minLength(1), v.maxLength(100)),
});

/** POST /api/v1/pair/exchange. */
export const ExchangeBody = v.object({ code: v.pipe(v.string(), v.minLength(4), v.maxLength(256)) });

/** A proxied client request, as a pull hands it to the server. */
export const HttpItem = v.object({
  kind: v.literal('http'),
  requestId: RequestId,
  method: v.string(),
  /** Path and query below `/r/<serverId>`, as the client sent them (still percent-encoded). */
  path: v.pipe(v.string(), v.startsWith('/')),
  headers: HeaderPairs,
  body: Base64Body,
  /** Relay time (epoch ms) after which the answer is refused; compare with the pull's `now`. */
  deadline: v.number(),
});

/** A pairing exchange for the server to redeem; never an HTTP route on the server. */
export const PairItem = v.object({
  kind: v.literal('pair'),
  requestId: RequestId,
  code: v.string(),
  deadline: v.number(),
});

/** `data` of a pull answer: the relay's clock and the items, oldest first. */
export const PullData = v.object({
  now: v.number(),
  items: v.array(v.variant('kind', [HttpItem, PairItem])),
});

export type HttpItem = v.InferOutput<typeof HttpItem>;
export type PairItem = v.InferOutput<typeof PairItem>;
export type RelayItem = HttpItem | PairItem;
export type HttpAnswer = v.InferOutput<typeof HttpAnswer>;
export type PairAnswer = v.InferOutput<typeof PairAnswer>;
export type RelayAnswer = HttpAnswer | PairAnswer;
export type PullData = v.InferOutput<typeof PullData>;

/** `data` of a register answer. */
export interface RegisterData {
  serverId: string;
  /** `created` on the first register of this serverId, `existing` after. */
  pin: 'created' | 'existing';
  /** Whether `pairCodeHash` was stored (false: that hash points at another server). */
  pairCodeAccepted: boolean | null;
  /** Where clients reach this server: `<RELAY_PUBLIC_BASE_URL>/r/<serverId>`. */
  publicUrl: string;
  limits: RelayWireLimits;
}

/** The limits a server should respect, as register reports them. */
export interface RelayWireLimits {
  maxBodyBytes: number;
  maxRespondBytes: number;
  answerTimeoutMs: number;
  pullWaitMs: number;
  maxBatch: number;
}
