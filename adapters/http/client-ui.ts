import { Hono } from 'hono';
import { errorBody } from '../../http-kit/envelope.ts';
import type { AppEnv, ClientUiDeps } from './types.ts';

export type { ClientAssets, ClientUiDeps } from './types.ts';

/**
 * Scripts and styles only from this origin (no inline script), calls to any http(s) server (the
 * page links to servers and relays you name), images only from this origin, data: and blob: (a
 * note's remote images load only through its "Load remote images" action), frames only of blob:
 * PDFs, the page itself never framed, no referrer.
 */
export const CLIENT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: only for the vault's images and media, fetched with the key by the workspace.
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  // A vault's PDF is shown by the browser's viewer in a frame on a blob URL (forced to
  // application/pdf by the workspace); nothing else may be framed.
  'frame-src blob:',
  "connect-src 'self' http: https:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CLIENT_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  map: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.([a-z0-9]+)$/;
const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `GET /link`, `/workspace`, `/` and the hashed assets of the built client. */
export function clientRoutes(deps: ClientUiDeps) {
  const app = new Hono<AppEnv>();

  const page = async () => {
    const bytes = await deps.assets.get('index.html');
    if (!bytes) {
      return new Response(
        JSON.stringify(errorBody('NOT_READY', 'The client UI is not built: run "npm run build:client".')),
        { status: 503, headers: { 'content-type': 'application/json', ...SECURITY_HEADERS } },
      );
    }
    const relay = deps.relayUrl?.() ?? '';
    const html = new TextDecoder()
      .decode(bytes)
      .replace(
        '<meta name="quire-relay-url" content="" />',
        `<meta name="quire-relay-url" content="${attr(relay)}" />`,
      );
    return new Response(html, {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        ...SECURITY_HEADERS,
      },
    });
  };
  for (const path of ['/', '/link', '/link/', '/workspace', '/workspace/', '/sign-in', '/invite', '/people'])
    app.get(path, page);

  const file = async (dir: string, name: string, cache: string) => {
    const type = TYPES[name.match(ASSET_NAME)?.[1] ?? ''];
    const bytes = type && !name.includes('..') ? await deps.assets.get(`${dir}${name}`) : null;
    if (!type || !bytes) {
      return new Response(JSON.stringify(errorBody('NOT_FOUND', 'No such file.')), {
        status: 404,
        headers: { 'content-type': 'application/json', ...SECURITY_HEADERS },
      });
    }
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { 'content-type': type, 'cache-control': cache, ...SECURITY_HEADERS },
    });
  };
  app.get('/favicon.svg', () => file('', 'favicon.svg', 'public, max-age=86400'));
  // The web app manifest and its icons (the workspace can be added to a home screen).
  for (const name of ['manifest.webmanifest', 'icon.svg', 'icon-192.png', 'icon-512.png'])
    app.get(`/${name}`, () => file('', name, 'public, max-age=86400'));
  // The service worker at the root, so its scope ("/") covers /link and /workspace; never cached
  // by HTTP, so a new build's worker is found on the next visit.
  app.get('/sw.js', () => file('', 'sw.js', 'no-cache'));
  // Vite names every asset by its content hash, so it can be cached for good.
  app.get('/assets/:name', (c) =>
    file('assets/', c.req.param('name'), 'public, max-age=31536000, immutable'),
  );
  return app;
}
