import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = `${ROOT}tests/browser/artifacts`;

/** Builds the client (client-link/dist) unless a build newer than its sources is there. */
export async function ensureClientBuilt(): Promise<void> {
  const index = `${ROOT}client-link/dist/index.html`;
  if (existsSync(index) && statSync(index).mtimeMs > newestSource()) return;
  const { build } = await import('vite');
  await build({ configFile: `${ROOT}client-link/vite.config.ts`, logLevel: 'warn' });
}

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  walk(`${ROOT}client-link/src`);
  walk(`${ROOT}client-link/public`);
  return Math.max(newest, statSync(`${ROOT}client-link/index.html`).mtimeMs);
}

/** Debian's Chromium, headless, with the flags these machines need. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh context and page that record every console message and every request the page makes. */
export async function recordedPage(browser: Browser): Promise<{
  context: BrowserContext;
  page: Page;
  console: string[];
  requests: { url: string; referer?: string }[];
}> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(8_000);
  const consoleLines: string[] = [];
  const requests: { url: string; referer?: string }[] = [];
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push({ url: r.url(), referer: r.headers().referer }));
  return { context, page, console: consoleLines, requests };
}
