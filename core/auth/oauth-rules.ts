/**
 * The OAuth rules that hold no state: which redirect URIs may be registered, the PKCE S256
 * challenge, and the scope a grant gets.
 */
import * as v from 'valibot';
import { toBase64Url } from '../crypto.ts';
import { OAuthError } from './oauth-types.ts';
import { CAPABILITIES, type Capability, inScope, type KeyScope, KeyScopeSchema } from './scope.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/**
 * A native app's private-use scheme (RFC 8252 7.1): a reverse domain name the app's vendor owns,
 * so at least one dot (`com.example.app:`). A single-word scheme is the browser's or the OS's own
 * (`javascript:`, `ms-msdt:`, `chrome:`, `view-source:`, `jar:`...) and is refused.
 */
const APP_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;
/** Single-word schemes of MCP clients that register them (Cursor's `cursor://anysphere.cursor-mcp/...`). */
const KNOWN_APP_SCHEMES = new Set(['cursor:']);
export const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
export const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Why a redirect URI cannot be registered, or null when it can: an absolute URI without a
 * fragment or credentials, with a scheme on the allow-list: https; http only to a loopback host
 * (RFC 8252 7.3); an app's private-use scheme named as a reverse domain (RFC 8252 7.1), or one of
 * the few single-word schemes known MCP clients use. Everything else is refused, so no scheme
 * that runs or reads something in the browser or the OS can be a redirect target.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (u.hash || uri.includes('#')) return 'has a fragment';
  if (u.username || u.password) return 'carries credentials';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:')
    return LOOPBACK.has(u.hostname) ? null : 'uses http to a host that is not loopback';
  if (APP_SCHEME.test(u.protocol) || KNOWN_APP_SCHEMES.has(u.protocol)) return null;
  return `uses the scheme ${u.protocol} (allowed: https, http to loopback, an app's reverse-domain scheme)`;
}

/** base64url(SHA-256(verifier)), the S256 code challenge (RFC 7636). */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return toBase64Url(new Uint8Array(digest));
}

/** The capabilities of a `scope` parameter that Quire knows (others are ignored). */
export function parseScopeParam(scope: string | undefined): Capability[] {
  const names = (scope ?? '').split(/\s+/).filter(Boolean);
  return CAPABILITIES.filter((c) => names.includes(c));
}

/**
 * The scope a grant gets: the capabilities and folders the owner picked, bounded by the scope of
 * the key that approves (a grant never exceeds its key). Throws `invalid_scope` when nothing is left.
 */
export function boundedScope(
  picked: { capabilities: readonly string[]; folders?: readonly string[] },
  keyScope: KeyScope | undefined,
): KeyScope {
  const caps = CAPABILITIES.filter(
    (c) => picked.capabilities.includes(c) && (!keyScope || keyScope.capabilities.includes(c)),
  );
  if (caps.length === 0) {
    throw new OAuthError('invalid_scope', 'Pick at least one capability the approving key holds.');
  }
  const parsed = v.safeParse(KeyScopeSchema, {
    capabilities: caps,
    ...(picked.folders && picked.folders.length > 0 ? { folders: [...picked.folders] } : {}),
  });
  if (!parsed.success) throw new OAuthError('invalid_scope', parsed.issues[0].message);
  const scope = parsed.output;
  if (keyScope?.folders && keyScope.folders.length > 0) {
    // Each picked folder must lie inside the key's folders; none picked: the key's own.
    if (!scope.folders || scope.folders.length === 0) scope.folders = [...keyScope.folders];
    else if (!scope.folders.every((f) => inScope({ capabilities: caps, folders: keyScope.folders }, f)))
      throw new OAuthError('invalid_scope', "A folder you picked is outside the approving key's folders.");
  }
  if (keyScope?.exclude && keyScope.exclude.length > 0) scope.exclude = [...keyScope.exclude];
  return scope;
}
