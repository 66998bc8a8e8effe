import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { fsClientAssets } from '../../adapters/node/client-assets.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { selfOrigins } from '../../deploy/shared/node-parts.ts';
import { requester, tempDir } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const INDEX = '<html><head><meta name="quire-relay-url" content="" /></head><body></body></html>';

async function appWithClient(files: Record<string, string> | null, relayUrl: string | null = null) {
  const tmp = await tempDir();
  cleanups.push(tmp.cleanup);
  const dist = join(tmp.dir, 'dist');
  if (files) {
    await mkdir(join(dist, 'assets'), { recursive: true });
    for (const [name, text] of Object.entries(files)) await writeFile(join(dist, name), text);
  }
  await writeFile(join(tmp.dir, 'secret.txt'), 'outside the client');
  const clock = { now: () => Date.now() };
  const notes = createNoteService({ store: memoryNoteStore(), clock });
  await notes.load();
  const app = createApp({
    notes,
    version: '0.0.0',
    clock,
    logger: silentLogger,
    client: { assets: fsClientAssets(dist), relayUrl: () => relayUrl },
  });
  return requester(app);
}

describe('the client UI served by the server', () => {
  it('serves /link and /workspace as HTML with a strict CSP and no referrer', async () => {
    const call = await appWithClient({ 'index.html': INDEX });
    for (const path of ['/link', '/workspace', '/', '/link/']) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      // Frames only for the workspace's PDF viewer on blob: URLs, no other source, no objects.
      expect(csp).toMatch(/(?:^|; )frame-src blob:(?:;|$)/);
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('writes the relay address into the page, escaped', async () => {
    const call = await appWithClient({ 'index.html': INDEX }, 'https://relay.example/x"><script>');
    const res = await call('GET', '/link');
    expect(res.text).toContain(
      '<meta name="quire-relay-url" content="https://relay.example/x&quot;>&lt;script>" />',
    );
    expect(res.text).not.toContain('<script>');
  });

  it('serves hashed assets with their types and immutable caching', async () => {
    const call = await appWithClient({
      'index.html': INDEX,
      'assets/index-AbC123.js': 'console.log(1)',
      'assets/index-AbC123.css': 'body{}',
      'favicon.svg': '<svg/>',
    });
    const js = await call('GET', '/assets/index-AbC123.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(js.text).toBe('console.log(1)');
    expect((await call('GET', '/assets/index-AbC123.css')).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
    const icon = await call('GET', '/favicon.svg');
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  });

  it('serves the service worker at the root (scope / covers /workspace) and the manifest with its icons', async () => {
    const call = await appWithClient({
      'index.html': INDEX,
      'sw.js': 'self.addEventListener("fetch", () => {})',
      'manifest.webmanifest': '{"name":"Quire"}',
      'icon.svg': '<svg/>',
      'icon-192.png': 'png',
      'icon-512.png': 'png',
    });
    const sw = await call('GET', '/sw.js');
    expect(sw.status).toBe(200);
    expect(sw.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    expect(sw.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(sw.text).toContain('fetch');
    const manifest = await call('GET', '/manifest.webmanifest');
    expect([manifest.status, manifest.headers.get('content-type')]).toEqual([
      200,
      'application/manifest+json; charset=utf-8',
    ]);
    for (const [path, type] of [
      ['/icon.svg', 'image/svg+xml'],
      ['/icon-192.png', 'image/png'],
      ['/icon-512.png', 'image/png'],
    ]) {
      const res = await call('GET', path!);
      expect([res.status, res.headers.get('content-type')], path).toEqual([200, type]);
    }
    // Only those names: no other file at the root is served.
    expect((await call('GET', '/index.html')).status).toBe(404);
    expect((await call('GET', '/other.js')).status).toBe(404);
  });

  it('answers 404 in the envelope for unknown or hostile asset names, never a file outside', async () => {
    const call = await appWithClient({ 'index.html': INDEX });
    for (const path of [
      '/assets/missing-1.js',
      '/assets/..%2F..%2Fsecret.txt',
      '/assets/%2e%2e%2fsecret.txt',
      '/assets/..%5Csecret.txt',
      '/assets/index.html',
      '/assets/x.exe',
      '/assets/.hidden.js',
    ]) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json?.success, path).toBe(false);
      expect(res.text).not.toContain('outside the client');
    }
  });

  it('says how to build the client when it is not built', async () => {
    const call = await appWithClient(null);
    const res = await call('GET', '/link');
    expect(res.status).toBe(503);
    expect(res.json.error).toMatchObject({ code: 'NOT_READY' });
    expect(res.json.error.message).toContain('npm run build:client');
  });
});

describe('CORS for the pages the server serves', () => {
  it('allows the server’s own origins once it listens, so its page can call the relay', () => {
    const config = loadConfig({ HOST: '127.0.0.1', PUBLIC_URL: 'https://notes.example/' }, '/tmp');
    expect(selfOrigins(config, 4321)).toEqual([
      'https://notes.example',
      'http://127.0.0.1:4321',
      'http://localhost:4321',
    ]);
    expect(selfOrigins(loadConfig({ HOST: '0.0.0.0' }, '/tmp'), 80)).toEqual([
      'http://127.0.0.1:80',
      'http://localhost:80',
    ]);
  });
});
