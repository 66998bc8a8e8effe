/**
 * Finding 9 (remote images): a note's remote images do not load when it is viewed in the
 * workspace (no tracking pixel fires); the per-note action loads them; the CSP forbids them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';

// A 1x1 transparent PNG.
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

let browser: Browser;
let server: LiveServer;
let pixels: Server;
let pixelUrl = '';
const hits: string[] = [];

beforeAll(async () => {
  await ensureClientBuilt();
  pixels = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
    res.end(PIXEL);
  });
  await new Promise<void>((r) => pixels.listen(0, '127.0.0.1', r));
  pixelUrl = `http://127.0.0.1:${(pixels.address() as AddressInfo).port}`;
  [browser, server] = await Promise.all([launchChromium(), liveServer({ PAIRING_MODE: 'open-port' })]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((r) => pixels?.close(r));
});

describe('remote images in the workspace', () => {
  it('are held back until the per-note action, and the CSP allows only this origin, data: and blob:', async () => {
    const h = { 'x-service-key': server.firstKey, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/v1/notes`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({
        path: 'tracked.md',
        content: `# Tracked\n\n![pixel](${pixelUrl}/pixel.png?id=1)\n\n![two](//127.0.0.1:${new URL(pixelUrl).port}/pixel.png?id=2)\n`,
      }),
    });
    expect(created.status).toBe(201);
    const page = await fetch(`${server.url}/workspace`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/img-src 'self' data: blob:(;|$)/);

    const setup = await server.setup();
    const rec = await recordedPage(browser);
    await rec.page.goto(setup.links.connect.hostedClient);
    await rec.page.waitForURL(/\/workspace$/, { timeout: 15_000 });
    await rec.page.getByTestId('note-list').waitFor({ state: 'attached' });
    await rec.page.goto(`${server.url}/workspace#note=tracked.md`);
    await rec.page.locator('article[data-path="tracked.md"] [data-testid="note-body"] img').first().waitFor({
      state: 'attached',
    });
    const srcs = () =>
      rec.page.$$eval('[data-testid="note-body"] img', (els) => els.map((e) => e.getAttribute('src')));
    expect(await srcs()).toEqual([null, null]);
    // Give a pixel every chance to fire: the page has loaded and every image it holds has settled.
    // (Not 'networkidle': the workspace keeps its change-feed stream open.)
    await rec.page.waitForLoadState('load');
    await rec.page.waitForFunction(() => [...document.images].every((i) => i.complete));
    expect(hits).toEqual([]);
    expect(rec.requests.some((r) => r.url.startsWith(pixelUrl))).toBe(false);

    await rec.page.getByTestId('load-remote-images').click();
    await expect.poll(srcs).toEqual([expect.stringMatching(/^blob:/), expect.stringMatching(/^blob:/)]);
    expect(hits.sort()).toEqual(['/pixel.png?id=1', '/pixel.png?id=2']);
    await rec.context.close();
  });
});
