import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The client UI: one page that routes /link and /workspace. `npm run dev:client` serves it on 5173. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  appType: 'spa',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline scripts or styles: the server's Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: {
    port: 5173,
    strictPort: true,
    headers: { 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' },
  },
  preview: { port: 5173, strictPort: true },
});
