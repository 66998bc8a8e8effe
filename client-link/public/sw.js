/*
 * Quire's service worker: keeps the app shell (the page, its hashed scripts and styles, the icons)
 * so /workspace opens without the network. It never touches API calls: notes read recently are
 * kept by the page itself (localStorage), with the key never stored here.
 * Pages: network first (a new build is picked up at once), the cached copy when the server is down.
 * /assets/*: cache first (their names carry their content hash).
 */
const CACHE = 'quire-shell-v1';
const PAGES = ['/workspace', '/link'];
const STATIC = ['/favicon.svg', '/icon.svg', '/manifest.webmanifest'];

/** The page and every asset it names (scripts, styles, module preloads). */
async function precache() {
  const cache = await caches.open(CACHE);
  const res = await fetch('/workspace', { cache: 'no-store' });
  if (!res.ok) return;
  const html = await res.clone().text();
  await cache.put('/workspace', res);
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  await cache.addAll([...new Set([...assets, ...STATIC])]).catch(() => {});
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  const page = req.mode === 'navigate' && PAGES.includes(url.pathname.replace(/\/+$/, ''));
  if (page) {
    const key = url.pathname.replace(/\/+$/, '');
    event.respondWith(
      fetch(req)
        .then(async (res) => {
          if (res.ok) await (await caches.open(CACHE)).put(key, res.clone());
          return res;
        })
        .catch(
          async () => (await caches.match(key)) ?? (await caches.match('/workspace')) ?? Response.error(),
        ),
    );
  } else if (url.pathname.startsWith('/assets/') || STATIC.includes(url.pathname)) {
    event.respondWith(
      caches.match(req).then(
        (hit) =>
          hit ??
          fetch(req).then(async (res) => {
            if (res.ok) await (await caches.open(CACHE)).put(req, res.clone());
            return res;
          }),
      ),
    );
  }
});
