/**
 * The OAuth authorization server's state: the approved clients and grants saved in `oauth.json`
 * (behind one mutex), and what lives in memory only (registrations not yet approved, codes not
 * yet used, codes already used). The flows over it are in oauth-grants.ts.
 */
import { jwtVerify, SignJWT } from 'jose';
import * as v from 'valibot';
import { type RandomBytes, secureRandom, sha256Hex, toBase64Url } from '../crypto.ts';
import { createMutex } from '../mutex.ts';
import {
  ACCESS_PREFIX,
  type AuthorizeRequest,
  OAUTH_STATE_KEY,
  type OAuthClient,
  type OAuthDeps,
  OAuthError,
  type OAuthGrant,
  type OAuthState,
  OAuthStateSchema,
  REFRESH_PREFIX,
  type TokenAnswer,
} from './oauth-types.ts';
import type { KeyScope } from './scope.ts';

/** An authorization code not yet used: the approved request, who approved it, and its scope. */
export type PendingCode = AuthorizeRequest & { keyId: string; scope: KeyScope; expiresAt: number };
/** A code already used, with the grant it made (a replay ends it). */
export interface SpentCode {
  grantId: string;
  expiresAt: number;
  revoked: boolean;
}

export class OAuthStore {
  readonly random: RandomBytes;
  readonly accessTtl: number;
  readonly codeTtlMs: number;
  readonly refreshTtlMs: number;
  readonly maxClients: number;
  readonly maxGrants: number;
  readonly maxPending: number;
  readonly pendingTtlMs: number;
  readonly mutex = createMutex();
  /** Codes not yet used, by their hash. */
  readonly codes = new Map<string, PendingCode>();
  /** Codes already used, by their hash. */
  readonly spent = new Map<string, SpentCode>();
  /** Registrations not yet approved, oldest first (never written: anyone may register). */
  readonly pending = new Map<string, OAuthClient>();
  private s: OAuthState | null = null;
  private key: Uint8Array | null = null;

  constructor(readonly deps: OAuthDeps) {
    this.random = deps.random ?? secureRandom;
    this.accessTtl = deps.accessTtlSeconds ?? 900;
    this.codeTtlMs = (deps.codeTtlSeconds ?? 60) * 1000;
    this.refreshTtlMs = (deps.refreshTtlSeconds ?? 30 * 86_400) * 1000;
    this.maxClients = deps.maxClients ?? 100;
    this.maxGrants = deps.maxGrants ?? 200;
    this.maxPending = deps.maxPending ?? 200;
    this.pendingTtlMs = (deps.pendingTtlSeconds ?? 86_400) * 1000;
  }

  now(): number {
    return this.deps.clock.now();
  }

  /** Loads `oauth.json`, or starts a new state (a new signing secret), saved on first use. */
  init(): Promise<void> {
    return this.mutex.run(async () => {
      const text = await this.deps.state.get(OAUTH_STATE_KEY);
      let parsed: OAuthState | null = null;
      if (text !== null) {
        const r = v.safeParse(OAuthStateSchema, parseJson(text));
        if (r.success) parsed = r.output;
        // A damaged file only costs the MCP clients a new consent: start over, and say so.
        else
          this.deps.logger?.warn(
            `${OAUTH_STATE_KEY} in DATA_DIR is damaged; OAuth clients must connect again`,
            {},
          );
      }
      // Written with the first registration, not at start (no cost for servers no client uses).
      if (!parsed) parsed = { v: 1, secret: toBase64Url(this.random(32)), clients: [], grants: [] };
      this.s = parsed;
      this.key = new TextEncoder().encode(parsed.secret);
    });
  }

  cur(): OAuthState {
    if (!this.s) throw new Error('oauth service used before init()');
    return this.s;
  }

  async save(next: OAuthState): Promise<void> {
    await this.deps.state.put(OAUTH_STATE_KEY, JSON.stringify(next));
    this.s = next;
  }

  /** Drops expired codes, spent marks and registrations. */
  sweep(): void {
    const now = this.now();
    for (const [h, c] of this.codes) if (c.expiresAt <= now) this.codes.delete(h);
    for (const [h, c] of this.spent) if (c.expiresAt <= now) this.spent.delete(h);
    for (const [id, c] of this.pending) if (c.createdAt + this.pendingTtlMs <= now) this.pending.delete(id);
  }

  /** Live grants: not expired, and their approving key still exists. */
  alive = (g: OAuthGrant): boolean => g.refreshExpiresAt > this.now() && this.deps.auth.hasKey(g.keyId);

  /** An approved client, or a registration still waiting for its first approval. */
  client(clientId: string | undefined): OAuthClient | null {
    if (clientId === undefined) return null;
    const waiting = this.pending.get(clientId);
    if (waiting && waiting.createdAt + this.pendingTtlMs > this.now()) return waiting;
    return this.cur().clients.find((c) => c.clientId === clientId) ?? null;
  }

  /**
   * The approved clients with `client` among them: a registration becomes a stored client with
   * its first grant. Full: the oldest approved client without a live grant makes room.
   */
  withClient(st: OAuthState, client: OAuthClient): OAuthClient[] {
    if (st.clients.some((c) => c.clientId === client.clientId)) return st.clients;
    let clients = st.clients;
    if (clients.length >= this.maxClients) {
      const used = new Set(st.grants.filter(this.alive).map((g) => g.clientId));
      const idle = clients.find((c) => !used.has(c.clientId));
      if (!idle)
        throw new OAuthError(
          'invalid_grant',
          'This server holds the most approved clients it keeps; revoke a grant first.',
        );
      clients = clients.filter((c) => c !== idle);
    }
    return [...clients, client];
  }

  removeGrant(id: string, why: string): Promise<void> {
    return this.mutex.run(async () => {
      const st = this.cur();
      if (!st.grants.some((g) => g.id === id)) return;
      await this.save({ ...st, grants: st.grants.filter((g) => g.id !== id) });
      this.deps.logger?.info('oauth grant ended', { grantId: id, reason: why });
    });
  }

  /** A signed access token and a new refresh token for `grant`, with the refresh token's hash. */
  async issueTokens(
    grant: OAuthGrant,
    issuer: string,
  ): Promise<{ answer: TokenAnswer; refreshHash: string }> {
    const now = Math.floor(this.now() / 1000);
    const scope = grant.scope.capabilities.join(' ');
    const jwt = await new SignJWT({ scope, client_id: grant.clientId })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(grant.id)
      .setIssuer(issuer)
      .setAudience(grant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + this.accessTtl)
      .sign(this.key!);
    const refresh = `${REFRESH_PREFIX}${grant.id}.${toBase64Url(this.random(32))}`;
    return {
      answer: {
        access_token: ACCESS_PREFIX + jwt,
        token_type: 'Bearer',
        expires_in: this.accessTtl,
        refresh_token: refresh,
        scope,
      },
      refreshHash: await sha256Hex(refresh),
    };
  }

  /** The `sub` (grant id) of an access token this server signed, or undefined when it does not verify. */
  async accessSubject(
    token: string,
    options: { audience?: string; requiredClaims?: string[] } = {},
  ): Promise<string | undefined> {
    try {
      const { payload } = await jwtVerify(token.slice(ACCESS_PREFIX.length), this.key!, {
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
        ...options,
      });
      return payload.sub;
    } catch {
      // Expired or forged.
      return undefined;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
