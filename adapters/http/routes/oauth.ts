/**
 * The OAuth 2.1 surface for MCP clients (rules in core/auth/oauth.ts): the metadata of
 * RFC 9728 and RFC 8414, registration (RFC 7591), the consent page, the token and revocation
 * endpoints. Every URL is built from the base the client used: through the relay that is
 * `<relay>/r/<serverId>`, from the relay's X-Forwarded-* headers (it sets them itself and drops a
 * client's own).
 */
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Context, Hono } from 'hono';
import { boundedScope, OAuthError, type OAuthService } from '../../../core/auth/oauth.ts';
import { hasCapability, type KeyScope } from '../../../core/auth/scope.ts';
import { DomainError } from '../../../core/errors.ts';
import type { Authenticator } from '../../../core/ports.ts';
import { ok } from '../../../http-kit/envelope.ts';
import { clientAddress, serverUrl } from '../client.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { backTo, consentCsp, consentPage, esc, OFFERED, page } from './oauth-consent.ts';

const HOST = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i;
const PREFIX = /^(\/[A-Za-z0-9._~-]+)*$/;

/**
 * The public base URL of this request, without a trailing slash: through the relay (a request the
 * tunnel delivered) `<proto>://<host><prefix>` from the relay's headers; otherwise PUBLIC_URL or
 * the request's origin (adapters/http/client.ts).
 */
export function publicBase(c: Context, deps: AppDeps): string {
  if ((c.env as { relayed?: boolean } | undefined)?.relayed === true) {
    const proto = c.req.header('x-forwarded-proto');
    const host = c.req.header('x-forwarded-host');
    const prefix = c.req.header('x-forwarded-prefix') ?? '';
    if ((proto === 'http' || proto === 'https') && host && HOST.test(host) && PREFIX.test(prefix)) {
      return `${proto}://${host}${prefix}`;
    }
  }
  return serverUrl(c, deps).replace(/\/+$/, '');
}

/** The resource `/mcp` is, for this request's base. */
export const mcpResource = (base: string) => `${base}/mcp`;

/** The value of `WWW-Authenticate` on a 401 from `/mcp` (MCP authorization, RFC 9728 section 5.1). */
export function mcpChallenge(base: string, invalidToken: boolean): string {
  const meta = `resource_metadata="${base}/.well-known/oauth-protected-resource"`;
  return invalidToken ? `Bearer error="invalid_token", ${meta}` : `Bearer ${meta}`;
}

const strings = (o: Record<string, unknown>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(o)) if (typeof val === 'string') out[k] = val;
  return out;
};

/**
 * The parameters of a form POST: OAuth sends `application/x-www-form-urlencoded` (RFC 6749), and
 * so does the consent form; anything else is refused (a broken multipart body is no 500).
 */
async function formBody(c: Context): Promise<URLSearchParams> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(c.req.header('content-type') ?? '')) {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await c.req.text());
}

/** The first value of each parameter. */
const firsts = (form: URLSearchParams): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, val] of form) if (!(k in out)) out[k] = val;
  return out;
};

/** What the OAuth routes work with. */
interface OAuthRouteDeps {
  deps: AppDeps;
  oauth: OAuthService;
  authenticator: Authenticator;
  limiter: RateLimiter;
}

const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** An OAuthError as the token endpoints answer it (RFC 6749 5.2); anything else is thrown on. */
function oauthError(c: Context, err: unknown) {
  if (err instanceof OAuthError) {
    return c.json({ error: err.error, error_description: err.description }, err.status as 400, noStore);
  }
  throw err;
}

/** A page on this server for a request it will not act on; never a redirect. */
const refusal = (c: Context, heading: string, description: string) =>
  c.html(page('Cannot authorize', `<h1>${esc(heading)}</h1><p>${esc(description)}</p>`), 400, {
    'Content-Security-Policy': consentCsp(''),
    ...noStore,
  });

/** The OAuth routes, mounted at the root (`/.well-known/*`, `/oauth/*`). */
export function oauthRoutes(
  deps: AppDeps,
  oauth: OAuthService,
  authenticator: Authenticator,
  limiter: RateLimiter,
) {
  const r: OAuthRouteDeps = { deps, oauth, authenticator, limiter };
  const app = new Hono<AppEnv>();
  const resourceMeta = (c: Context) => resourceMetadata(c, deps);
  app.get('/.well-known/oauth-protected-resource', resourceMeta);
  app.get('/.well-known/oauth-protected-resource/mcp', resourceMeta);
  app.get('/.well-known/oauth-authorization-server', (c) => serverMetadata(c, deps));
  app.post('/oauth/register', (c) => register(c, r));
  app.get('/oauth/authorize', (c) => {
    const p = strings(c.req.query());
    const checked = check(c, r, p);
    if (checked.res) return checked.res;
    return c.html(consentPage(checked.req, p), 200, {
      'Content-Security-Policy': consentCsp(checked.req.redirectUri),
      ...noStore,
    });
  });
  app.post('/oauth/authorize', (c) => decide(c, r));
  app.post('/oauth/token', async (c) => {
    await limiter.auth(clientAddress(c, deps));
    const issuer = publicBase(c, deps);
    try {
      const p = firsts(await formBody(c));
      if (p.grant_type === 'authorization_code')
        return c.json(await oauth.exchangeCode(p, issuer), 200, noStore);
      if (p.grant_type === 'refresh_token') return c.json(await oauth.refresh(p, issuer), 200, noStore);
      throw new OAuthError('unsupported_grant_type', 'Use authorization_code or refresh_token.');
    } catch (err) {
      return oauthError(c, err);
    }
  });
  app.post('/oauth/revoke', async (c) => {
    await limiter.auth(clientAddress(c, deps));
    try {
      await oauth.revoke(firsts(await formBody(c)).token);
    } catch (err) {
      return oauthError(c, err);
    }
    return c.body(null, 200, noStore);
  });
  return app;
}

/** RFC 9728: the protected resource's metadata. */
function resourceMetadata(c: Context, deps: AppDeps) {
  const base = publicBase(c, deps);
  const body: OAuthProtectedResourceMetadata = {
    resource: mcpResource(base),
    authorization_servers: [base],
    scopes_supported: [...OFFERED],
    bearer_methods_supported: ['header'],
    resource_name: 'Quire',
  };
  return c.json(body, 200, { 'Cache-Control': 'max-age=300' });
}

/** RFC 8414: the authorization server's metadata. */
function serverMetadata(c: Context, deps: AppDeps) {
  const base = publicBase(c, deps);
  const body: OAuthMetadata = {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...OFFERED],
    authorization_response_iss_parameter_supported: true,
  };
  return c.json(body, 200, { 'Cache-Control': 'max-age=300' });
}

/** RFC 7591: registers a public client (kept in memory until the owner's first approval). */
async function register(c: Context, { deps, oauth, limiter }: OAuthRouteDeps) {
  await limiter.auth(clientAddress(c, deps));
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return c.json({ error: 'invalid_client_metadata', error_description: 'The body is not JSON.' }, 400);
  }
  // The SDK's own schema (zod) checks the shape; loaded on the first registration only.
  const { OAuthClientMetadataSchema } = await import('@modelcontextprotocol/sdk/shared/auth.js');
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return c.json(
      {
        error: 'invalid_client_metadata',
        error_description: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
      },
      400,
    );
  }
  const meta = parsed.data;
  const grantTypes = meta.grant_types ?? ['authorization_code', 'refresh_token'];
  if (grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    return c.json(
      { error: 'invalid_client_metadata', error_description: 'Only authorization_code and refresh_token.' },
      400,
    );
  }
  try {
    const client = await oauth.registerClient({
      redirect_uris: meta.redirect_uris.map(String),
      ...(meta.client_name ? { client_name: meta.client_name } : {}),
    });
    return c.json(
      {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt / 1000),
        redirect_uris: client.redirectUris,
        ...(client.clientName ? { client_name: client.clientName } : {}),
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // Public clients only: PKCE proves the code's owner, there is no client secret.
        token_endpoint_auth_method: 'none',
      },
      201,
      noStore,
    );
  } catch (err) {
    return oauthError(c, err);
  }
}

/**
 * Checks the request. Every error is shown here, never sent to the redirect URI: until the
 * owner decides on the consent page, a registered redirect URI is only the claim of whoever
 * registered it, and an error sent there would make this origin (and the relay's) an open
 * redirect (RFC 9700 4.11.2).
 */
function check(c: Context, { deps, oauth }: OAuthRouteDeps, p: Record<string, string>) {
  try {
    return { req: oauth.checkAuthorize(p, mcpResource(publicBase(c, deps))) };
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return { res: refusal(c, 'This authorization request is not valid', err.description) };
  }
}

/**
 * The key that approves, with its scope, or null. The authenticator gives the key's scope; in jwt
 * mode (where it wants a token) the key is checked by the key store itself.
 */
async function approvingKey(
  { deps, authenticator }: OAuthRouteDeps,
  key: string | undefined,
): Promise<{ id: string; scope?: KeyScope } | null> {
  if (!key || key.length > 256) return null;
  let principal: { id: string; scope?: KeyScope } | null = await authenticator
    .authenticate({ apiKey: key })
    .catch(() => null);
  if (principal && (principal as { method?: string }).method !== 'api-key') principal = null;
  if (!principal && deps.setup) {
    const info = await deps.setup.service.verifyKey(key);
    principal = info ? { id: info.id, scope: (info as { scope?: KeyScope }).scope } : null;
  }
  return principal;
}

/** The consent form posted: denied, back to the client with an error; approved, with a code. */
async function decide(c: Context, r: OAuthRouteDeps) {
  const { deps, oauth, limiter } = r;
  const address = clientAddress(c, deps);
  await limiter.auth(address);
  let form: URLSearchParams;
  try {
    form = await formBody(c);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return refusal(c, 'Not a form', err.description);
  }
  const p = firsts(form);
  const checked = check(c, r, p);
  if (checked.res) return checked.res;
  const req = checked.req;
  const issuer = publicBase(c, deps);
  const headers = { 'Content-Security-Policy': consentCsp(req.redirectUri), ...noStore };
  if (p.action !== 'approve') {
    return c.redirect(
      backTo(
        req.redirectUri,
        { error: 'access_denied', error_description: 'The owner denied access.', state: req.state },
        issuer,
      ),
      302,
    );
  }
  await limiter.beforeAuth(address);
  const principal = await approvingKey(r, p.key);
  if (!principal) {
    await limiter.failed(address);
    return c.html(consentPage(req, p, 'That key is not valid on this server.'), 401, headers);
  }
  const capabilities = form.getAll('capability');
  const folders = (p.folders ?? '')
    .split(/[,\n]/)
    .map((f) => f.trim())
    .filter(Boolean);
  try {
    // Every MCP tool reads notes: a grant for /mcp without notes:read could do nothing.
    if (!capabilities.includes('notes:read'))
      throw new OAuthError('invalid_scope', 'Keep "Read notes" checked: every MCP tool needs it.');
    const scope = boundedScope(
      { capabilities: capabilities.filter((x) => (OFFERED as string[]).includes(x)), folders },
      principal.scope,
    );
    const code = await oauth.issueCode(req, principal.id, scope);
    return c.redirect(backTo(req.redirectUri, { code, state: req.state }, issuer), 302);
  } catch (err) {
    if (err instanceof OAuthError) return c.html(consentPage(req, p, err.description), 400, headers);
    throw err;
  }
}

/**
 * The owner's view of the grants (`/api/v1/auth/oauth/grants`, behind the API's authentication):
 * list them, end one without revoking the key that approved it. Needs `admin`.
 */
export function oauthGrantRoutes(oauth: OAuthService) {
  const app = new Hono<AppEnv>();
  const admin = (c: Context<AppEnv>) => {
    if (!hasCapability(c.get('principal')?.scope, 'admin'))
      throw new DomainError(
        'FORBIDDEN',
        'This key lacks the "admin" capability needed to manage OAuth grants.',
      );
  };
  app.get('/', (c) => {
    admin(c);
    return ok(c, oauth.listGrants());
  });
  app.delete('/:id', async (c) => {
    admin(c);
    const id = c.req.param('id');
    if (!(await oauth.revokeGrant(id)))
      throw new DomainError('NOT_FOUND', `No OAuth grant with id "${id.slice(0, 100)}".`);
    return ok(c, { revoked: id });
  });
  return app;
}
