import * as v from 'valibot';
import { parseJsonOr } from '../json.ts';
import { KeyScopeSchema } from './scope.ts';

/** One API key as stored: never the key itself, only its SHA-256. */
const KeyRecordSchema = v.object({
  id: v.string(),
  name: v.string(),
  kind: v.picklist(['first', 'device']),
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  last4: v.string(),
  createdAt: v.string(),
  lastUsedAt: v.nullable(v.string()),
  /** What the key may do; absent: full access (every key minted before scopes). */
  scope: v.optional(KeyScopeSchema),
});

/** The server's credentials file (`credentials.json` in DATA_DIR, mode 0600). */
export const AuthStateSchema = v.object({
  v: v.literal(1),
  serverId: v.pipe(v.string(), v.minLength(8)),
  createdAt: v.string(),
  setupComplete: v.boolean(),
  linkedAt: v.nullable(v.string()),
  /** The first key in plain text, kept only while setup is incomplete so the setup payload can show it. */
  firstKeyPlain: v.nullable(v.string()),
  keys: v.array(KeyRecordSchema),
  /** Proves this server's ownership of its serverId at the relay. */
  relaySecret: v.pipe(v.string(), v.minLength(32)),
  pairing: v.object({ code: v.string(), expiresAt: v.string() }),
  /** The Ed25519 identity key (core/identity.ts); the serverId is derived from its public half. */
  identity: v.object({ publicKey: v.string(), privateKey: v.string() }),
});

export type KeyRecord = v.InferOutput<typeof KeyRecordSchema>;
export type AuthState = v.InferOutput<typeof AuthStateSchema>;

/** The stored credentials cannot be used; the message is one line an operator can act on. */
export class AuthStateError extends Error {
  override name = 'AuthStateError';
}

/** Parses the stored state; throws AuthStateError with one clear line when it is not valid. */
export function parseAuthState(text: string, where: string): AuthState {
  const data = parseJsonOr(
    text,
    () =>
      new AuthStateError(
        `${where} is not valid JSON; restore it from a backup (it holds this server's keys).`,
      ),
  );
  const r = v.safeParse(AuthStateSchema, data);
  if (!r.success) {
    const field = v.getDotPath(r.issues[0]) ?? '(root)';
    throw new AuthStateError(
      `${where} is damaged (field ${field}); restore it from a backup (it holds this server's keys).`,
    );
  }
  return r.output;
}

/** A key as the API lists it. */
export interface KeyInfo {
  id: string;
  name: string;
  kind: 'first' | 'device';
  /** Redacted: the prefix and the last 4 characters. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** What the key may do; null: full access. */
  scope: v.InferOutput<typeof KeyScopeSchema> | null;
}
