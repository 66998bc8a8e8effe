import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify, SignJWT } from 'jose';
import { DomainError } from '../errors.ts';
import type { Clock } from '../ports.ts';

export interface JwtOptions {
  /** HS256 secret (at least 32 characters); lets the server issue its own tokens. */
  secret?: string;
  /** A JWKS URL whose keys verify tokens issued elsewhere. */
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** Lifetime of tokens this server issues (default 900 s). */
  ttlSeconds?: number;
  clock: Clock;
}

/** The claim that binds a token this server issues to the API key it was traded for. */
export const KEY_ID_CLAIM = 'qkid';

/** The longest lifetime a token may have (`exp` - now), whoever issued it: 24 hours. */
export const MAX_TOKEN_LIFETIME_SECONDS = 86_400;

/** What a valid token says: its subject, the key it is bound to (if any), and who signed it. */
export interface VerifiedToken {
  subject: string;
  /** The API key id in the `qkid` claim; the token dies with that key. */
  keyId: string | null;
  /** True when signed with JWT_SECRET (then `qkid` is required). */
  selfIssued: boolean;
}

/** Issues and checks JWTs: signature, `exp`, `nbf`, and `iss`/`aud` when configured. */
export function createJwt(opts: JwtOptions) {
  const secret = opts.secret ? new TextEncoder().encode(opts.secret) : null;
  const jwks: JWTVerifyGetKey | null = opts.jwksUrl ? createRemoteJWKSet(new URL(opts.jwksUrl)) : null;
  const ttl = Math.min(opts.ttlSeconds ?? 900, MAX_TOKEN_LIFETIME_SECONDS);
  if (!secret && !jwks) throw new Error('jwt mode needs JWT_SECRET or JWT_JWKS_URL');

  return {
    /** True when this server can issue tokens (it has a secret). */
    canIssue: secret !== null,

    /** A signed token for `subject` (a key id). */
    async issue(subject: string): Promise<{ token: string; tokenType: 'Bearer'; expiresAt: string }> {
      if (!secret) {
        throw new DomainError(
          'FORBIDDEN',
          'This server only verifies tokens from JWT_JWKS_URL; get one from your issuer.',
        );
      }
      const now = Math.floor(opts.clock.now() / 1000);
      let jwt = new SignJWT({ [KEY_ID_CLAIM]: subject })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(subject);
      jwt = jwt
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + ttl);
      if (opts.issuer) jwt = jwt.setIssuer(opts.issuer);
      if (opts.audience) jwt = jwt.setAudience(opts.audience);
      return {
        token: await jwt.sign(secret),
        tokenType: 'Bearer',
        expiresAt: new Date((now + ttl) * 1000).toISOString(),
      };
    },

    /**
     * The subject of a valid token; throws INVALID_TOKEN otherwise. `exp` is required and may lie
     * at most MAX_TOKEN_LIFETIME_SECONDS ahead.
     */
    async verify(token: string): Promise<VerifiedToken> {
      const check = {
        currentDate: new Date(opts.clock.now()),
        requiredClaims: ['exp'],
        ...(opts.issuer ? { issuer: opts.issuer } : {}),
        ...(opts.audience ? { audience: opts.audience } : {}),
      };
      type Payload = { sub?: string; exp?: number; [KEY_ID_CLAIM]?: unknown };
      const attempts: [boolean, () => Promise<{ payload: Payload }>][] = [];
      if (secret) attempts.push([true, () => jwtVerify(token, secret, { ...check, algorithms: ['HS256'] })]);
      if (jwks) attempts.push([false, () => jwtVerify(token, jwks, check)]);
      let reason = 'the token is not valid';
      const nowS = Math.floor(opts.clock.now() / 1000);
      for (const [selfIssued, attempt] of attempts) {
        try {
          const { payload } = await attempt();
          if ((payload.exp ?? 0) - nowS > MAX_TOKEN_LIFETIME_SECONDS) {
            reason = 'the token lives longer than 24 hours';
            continue;
          }
          const kid = payload[KEY_ID_CLAIM];
          if (selfIssued && typeof kid !== 'string') {
            reason = 'the token is not bound to an API key';
            continue;
          }
          return {
            subject: payload.sub ?? 'unknown',
            keyId: typeof kid === 'string' ? kid : null,
            selfIssued,
          };
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'ERR_JWT_EXPIRED') reason = 'the token has expired';
          else if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED')
            reason = `the token's claims do not match this server (exp is required)`;
        }
      }
      throw new DomainError(
        'INVALID_TOKEN',
        `Unauthorized: ${reason}; get a new one from POST /api/v1/auth/token.`,
      );
    },
  };
}

export type Jwt = ReturnType<typeof createJwt>;
