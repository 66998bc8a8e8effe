import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** A loopback redirect nobody listens on: the test reads the Location header instead of following it. */
export const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * The official SDK's OAuth client side, held in memory: what a desktop MCP client keeps between
 * runs (client registration, tokens, the PKCE verifier) and where it would open the browser.
 */
export class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authUrl: URL | null = null;
  lastState = '';
  constructor(readonly redirect = REDIRECT) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    this.lastState = `st-${Math.random().toString(36).slice(2)}`;
    return this.lastState;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden fields of the consent form, as a browser would submit them. */
export function hiddenFields(html: string): URLSearchParams {
  const out = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    out.append(unescapeHtml(m[1]!), unescapeHtml(m[2]!));
  }
  return out;
}

/** Opens the consent page at `authUrl` and submits it as a browser would; returns the answer (redirect not followed). */
export async function submitConsent(
  authUrl: URL,
  form: { key: string; capabilities?: string[]; folders?: string; action?: 'approve' | 'deny' },
) {
  const page = await fetch(authUrl);
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html.slice(0, 200)}`);
  const body = hiddenFields(html);
  for (const cap of form.capabilities ?? ['notes:read', 'files:read']) body.append('capability', cap);
  if (form.folders) body.set('folders', form.folders);
  body.set('key', form.key);
  body.set('action', form.action ?? 'approve');
  // The form's action is "" (the page's own URL), so it posts back to the same URL.
  const res = await fetch(authUrl, { method: 'POST', body, redirect: 'manual' });
  return { res, page, html };
}

/**
 * The whole OAuth flow with the SDK client: the first connect meets a 401, discovers, registers
 * and asks for authorization; the consent page is approved with `key`; the code is exchanged
 * (`finishAuth`) and a connected client comes back.
 */
export async function oauthConnect(
  mcpUrl: string,
  key: string,
  opts: { provider?: MemoryProvider; capabilities?: string[]; folders?: string } = {},
) {
  const provider = opts.provider ?? new MemoryProvider();
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
  await first.connect(transport).then(
    () => {
      throw new Error('connected without authorization');
    },
    (err) => {
      if (!(err instanceof UnauthorizedError)) throw err;
    },
  );
  if (!provider.authUrl) throw new Error('the SDK did not ask for authorization');
  const { res } = await submitConsent(provider.authUrl, {
    key,
    ...(opts.capabilities ? { capabilities: opts.capabilities } : {}),
    ...(opts.folders ? { folders: opts.folders } : {}),
  });
  if (res.status !== 302) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  const back = new URL(res.headers.get('location')!);
  if (back.searchParams.get('state') !== provider.lastState) throw new Error('state was not echoed');
  await transport.finishAuth(back.searchParams.get('code')!);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
  return { client, provider, authUrl: provider.authUrl, location: back };
}
