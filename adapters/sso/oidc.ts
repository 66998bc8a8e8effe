/**
 * The server's OpenID Connect provider through openid-client (the `SsoProvider` port of
 * core/people/sso.ts): discovery once (again after a failure), the authorization code flow with
 * PKCE (S256), state and nonce, and the ID token checked by the library (signature, issuer,
 * audience, expiry, nonce). Plain HTTP is accepted for an issuer on loopback only (a provider
 * started beside the server, as the tests do); anywhere else the issuer must be HTTPS.
 */
import * as oidc from 'openid-client';
import { DomainError } from '../../core/errors.ts';
import { isLoopbackHost } from '../../core/net/hosts.ts';
import type { SsoAttempt, SsoIdentity, SsoProvider } from '../../core/people/sso.ts';

export interface OidcOptions {
  issuer: string;
  clientId: string;
  /** A confidential client's secret; absent: a public client (PKCE only). */
  clientSecret?: string;
}

const unreachable = (err: unknown) =>
  new DomainError(
    'SSO_PROVIDER_ERROR',
    `The single sign-on provider could not be reached or described itself wrongly (${oidcReason(err)}).`,
  );

/** What went wrong, in a few words, never a token or a secret (the library's code or message). */
function oidcReason(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message.slice(0, 200) : 'unknown error';
}

export function oidcProvider(opts: OidcOptions): SsoProvider {
  const issuer = new URL(opts.issuer);
  const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
  let config: Promise<oidc.Configuration> | null = null;
  const configured = (): Promise<oidc.Configuration> => {
    config ??= oidc
      .discovery(
        issuer,
        opts.clientId,
        opts.clientSecret,
        undefined,
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err: unknown) => {
        config = null;
        throw unreachable(err);
      });
    return config;
  };
  return {
    label: issuer.host,
    async begin(redirectUri: string) {
      const cfg = await configured();
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(cfg, {
        redirect_uri: redirectUri,
        scope: 'openid profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, attempt: { verifier, state, nonce } };
    },
    async finish(callbackUrl: URL, redirectUri: string, attempt: SsoAttempt): Promise<SsoIdentity> {
      const cfg = await configured();
      try {
        const tokens = await oidc.authorizationCodeGrant(
          cfg,
          callbackUrl,
          {
            pkceCodeVerifier: attempt.verifier,
            expectedState: attempt.state,
            expectedNonce: attempt.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: redirectUri },
        );
        const claims = tokens.claims();
        if (!claims?.sub || !claims.iss) throw new Error('no subject in the ID token');
        return { issuer: claims.iss, subject: claims.sub };
      } catch (err) {
        throw new DomainError(
          'UNAUTHORIZED',
          `The single sign-on provider did not confirm who you are (${oidcReason(err)}). Try again.`,
        );
      }
    },
  };
}
