import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../adapters/http/routes/docs.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';

let browser: Browser;
let server: LiveServer;

beforeAll(async () => {
  await ensureClientBuilt();
  [browser, server] = await Promise.all([launchChromium(), liveServer({ PAIRING_MODE: 'open-port' })]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the API reference at /api/v1/docs', () => {
  it('renders every area of the API under its own CSP, loading nothing from another origin', async () => {
    const rec = await recordedPage(browser);
    const res = await rec.page.goto(`${server.url}/api/v1/docs`);
    expect(res?.headers()['content-security-policy']).toBe(DOCS_CSP);
    await rec.page.getByRole('heading', { name: 'Quire API' }).waitFor({ timeout: 20_000 });
    for (const tag of ['Auth', 'Notes', 'Agent', 'Channels', 'Plugins'])
      await rec.page.getByText(tag, { exact: true }).first().waitFor();
    await rec.page.getByText('Notes', { exact: true }).first().click();
    await rec.page.getByText('Create a note (never overwrites: 409)').first().waitFor();
    await rec.page.screenshot({ path: `${ARTIFACTS}/api-docs.png` });
    const origin = new URL(server.url).origin;
    expect(rec.requests.filter((r) => !r.url.startsWith(origin) && !r.url.startsWith('data:'))).toEqual([]);
    expect(rec.requests.map((r) => new URL(r.url).pathname)).toContain('/api/v1/openapi.json');
    expect(rec.console.filter((l) => /Content Security Policy|pageerror|^error/i.test(l))).toEqual([]);
    await rec.context.close();
  }, 60_000);
});
