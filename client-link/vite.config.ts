import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * Copies the API reference's browser bundle (Scalar, a dev dependency) into the build as
 * `api-reference.js`, so the server's /api/v1/docs page loads nothing from a CDN.
 */
const apiReference = (): Plugin => ({
  name: 'quire-api-reference',
  apply: 'build',
  generateBundle() {
    const file = new URL('../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url);
    this.emitFile({ type: 'asset', fileName: 'api-reference.js', source: readFileSync(file) });
  },
});

/** The client UI: one page that routes /link and /workspace. `npm run dev:client` serves it on 5173. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  appType: 'spa',
  plugins: [apiReference()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline scripts or styles: the server's Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        // The server serves only asset names that start with a letter or digit
        // (adapters/http/client-ui.ts): `_commonjsHelpers` and the like lose their leading `_`.
        sanitizeFileName: (name) => name.replace(/[^A-Za-z0-9._/-]/g, '_').replace(/(^|\/)[_.-]+/g, '$1'),
      },
    },
    target: 'es2022',
  },
  server: {
    port: 5173,
    strictPort: true,
    headers: { 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' },
  },
  preview: { port: 5173, strictPort: true },
});
