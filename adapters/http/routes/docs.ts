import { Hono } from 'hono';
import { errorBody } from '../../../http-kit/envelope.ts';
import { serverUrl } from '../client.ts';
import type { ClientAssets } from '../client-ui.ts';
import { openApiDocument } from '../openapi/document.ts';
import type { AppDeps, AppEnv } from '../types.ts';

/**
 * The reference page's own policy: its script from this server only (no CDN, no inline script),
 * inline styles (the reference sets them), calls to this server only (the OpenAPI document and
 * "Test request"), no framing.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Scalar's settings: no fonts or registry from its servers, no telemetry, no AI agent. */
const REFERENCE_CONFIG = JSON.stringify({
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  hideClientButton: false,
  persistAuth: false,
  metaData: { title: 'Quire API' },
});

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="referrer" content="no-referrer" />
<link rel="icon" href="data:," />
<title>Quire API reference</title>
</head>
<body>
<noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
<script id="api-reference" type="application/json" data-url="openapi.json" data-configuration='${REFERENCE_CONFIG.replace(/'/g, '&#39;')}'></script>
<script src="docs/api-reference.js"></script>
</body>
</html>
`;

/**
 * `GET /api/v1/openapi.json` (the document, generated from the same schemas that validate the
 * requests), `GET /api/v1/docs` (the interactive reference) and its script, which comes from
 * the built client (`npm run build:client` copies it there).
 */
export function docsRoutes(deps: AppDeps, assets: ClientAssets | undefined) {
  const app = new Hono<AppEnv>();
  const cache = new Map<string, string>();
  app.get('/openapi.json', (c) => {
    const base = serverUrl(c, deps);
    let text = cache.get(base);
    if (text === undefined) {
      text = JSON.stringify(openApiDocument({ version: deps.version, serverUrl: base }));
      if (cache.size > 8) cache.clear();
      cache.set(base, text);
    }
    return c.body(text, 200, {
      'content-type': 'application/json; charset=UTF-8',
      'cache-control': 'no-cache',
    });
  });
  app.get('/docs', (c) =>
    c.body(PAGE, 200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      ...HEADERS,
    }),
  );
  app.get('/docs/api-reference.js', async (c) => {
    const bytes = await assets?.get('api-reference.js');
    if (!bytes) {
      return c.json(
        errorBody('NOT_READY', 'The API reference is not built: run "npm run build:client".'),
        503,
        HEADERS,
      );
    }
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      ...HEADERS,
    });
  });
  return app;
}
