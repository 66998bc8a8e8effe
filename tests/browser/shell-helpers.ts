import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { PROFILES_KEY, type Profile } from '../../client-link/src/flow/profiles.ts';
import { tempDir } from '../helpers/app.ts';
import { liveServer } from '../helpers/live-server.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium } from './browser.ts';

const AXE = readFileSync(
  fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)),
  'utf8',
);

/**
 * Runs axe-core in the page (its source evaluated through the DevTools protocol, which the page's
 * CSP does not govern) and answers the serious and critical violations, one line each.
 */
export async function axeSerious(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<any> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations as { id: string; impact: string; nodes: { target: string[] }[] }[];
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Every axe violation in the page, whatever its impact (minor included), one line each: the
 * impact, the rule, and the elements.
 */
export async function axeAll(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<any> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations as { id: string; impact: string; nodes: { target: string[] }[] }[];
  });
  return violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Writes `files` (path → text or bytes) under `dir`. */
export async function writeVault(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), body);
  }
}

/**
 * A loopback HTTP proxy in front of `target`: the browser's origin. `stop()` closes it (the server
 * is gone, as far as the browser knows); `start()` listens again on the same port.
 */
export async function switchableProxy(target: string) {
  const t = new URL(target);
  const make = (): Server =>
    createServer((req, res) => {
      const up = request(
        { host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
  let server = make();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async start() {
      server = make();
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
  };
}

/** True when the page scrolls sideways. */
export const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** How a workspace page is opened on a stage. */
export interface StagePage {
  width: number;
  height?: number;
  scheme: 'light' | 'dark';
  /** The profile's name. */
  name: string;
  /** Keep the profiles a reload finds stored (an offline page's), instead of writing them anew. */
  keep?: boolean;
  /** Called on the page before it loads (listeners that must see the first requests). */
  onPage?: (page: Page) => void;
}

/**
 * The workspace tests' stage: a real server over `files`, a proxy in front of it that can be
 * stopped (the server gone, as far as the browser knows), and Chromium. `open` gives a page on the
 * workspace through the proxy with one stored profile (the server's first key).
 */
export async function workspaceStage(prefix: string, files: Record<string, string | Uint8Array>) {
  const vault = await tempDir(prefix);
  await writeVault(vault.dir, files);
  await ensureClientBuilt();
  const [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir }),
  ]);
  const serverId = (await s.setup()).serverId;
  const proxy = await switchableProxy(s.url);
  await mkdir(ARTIFACTS, { recursive: true });
  const open = async (o: StagePage) => {
    const context = await browser.newContext({
      viewport: { width: o.width, height: o.height ?? 800 },
      colorScheme: o.scheme,
    });
    const profile: Profile = {
      id: `${serverId}@direct`,
      serverId,
      serverUrl: proxy.url,
      apiKey: s.firstKey,
      mode: 'direct',
      relayUrl: null,
      name: o.name,
      linkedAt: new Date().toISOString(),
    };
    await context.addInitScript(
      ([k, v, keep]) => {
        if (keep !== '1' || !localStorage.getItem(k!)) localStorage.setItem(k!, v!);
      },
      [
        PROFILES_KEY,
        JSON.stringify({ version: 1, active: profile.id, profiles: [profile] }),
        o.keep ? '1' : '',
      ],
    );
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    o.onPage?.(page);
    await page.goto(`${proxy.url}/workspace`);
    await page.locator('[data-testid="tree"] details').first().waitFor({ state: 'attached' });
    return { context, page, errors, close: () => context.close() };
  };
  const stop = async () => {
    await browser.close();
    await proxy.stop().catch(() => {});
    await s.stop();
    await vault.cleanup();
  };
  return { browser, s, serverId, proxy, vault, open, stop };
}
