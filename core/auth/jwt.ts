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

/** Issues and checks JWTs: signature, `exp`, `nbf`, and `iss`/`aud` when configured. */
export function createJwt(opts: JwtOptions) {
  const secret = opts.secret ? new TextEncoder().encode(opts.secret) : null;
  const jwks: JWTVerifyGetKey | null = opts.jwksUrl ? createRemoteJWKSet(new URL(opts.jwksUrl)) : null;
  const ttl = opts.ttlSeconds ?? 900;
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
      let jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(subject);
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

    /** The subject of a valid token; throws INVALID_TOKEN otherwise. */
    async verify(token: string): Promise<{ subject: string }> {
      const check = {
        currentDate: new Date(opts.clock.now()),
        ...(opts.issuer ? { issuer: opts.issuer } : {}),
        ...(opts.audience ? { audience: opts.audience } : {}),
      };
      const attempts: (() => Promise<{ payload: { sub?: string } }>)[] = [];
      if (secret) attempts.push(() => jwtVerify(token, secret, { ...check, algorithms: ['HS256'] }));
      if (jwks) attempts.push(() => jwtVerify(token, jwks, check));
      let reason = 'the token is not valid';
      for (const attempt of attempts) {
        try {
          const { payload } = await attempt();
          return { subject: payload.sub ?? 'unknown' };
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'ERR_JWT_EXPIRED') reason = 'the token has expired';
          else if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED')
            reason = `the token's claims do not match this server`;
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
