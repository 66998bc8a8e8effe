/// <reference types="vite/client" />
/**
 * Registers the service worker (`/sw.js`, scope `/`: it covers /link and /workspace) that keeps the
 * app shell for offline use. Notes themselves are kept by the workspace (flow/offline-store.ts).
 * Not in the dev server: a cached shell would hide edits to the sources.
 */
export function registerServiceWorker(): void {
  if (import.meta.env.MODE === 'development' || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {
    // Without a service worker the workspace still works online; only offline opening is lost.
  });
}
