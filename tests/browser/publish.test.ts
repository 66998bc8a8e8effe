/**
 * A published folder in real Chromium, as an anonymous reader, directly and through the embedded
 * relay: the index lists the published notes, a link between them is followed, a link to a note
 * that is not published is plain text without its title, the pages need no script (the CSP
 * allows none, and nothing breaks), and after the owner revokes the publication the next request
 * is refused.
 */

import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { ARTIFACTS, launchChromium, recordedPage } from './browser.ts';

const SECRET = 'zzhiddentitlezz';
let browser: Browser;
let server: LiveServer;

const owner = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { 'x-service-key': server.firstKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
};

beforeAll(async () => {
  [browser, server] = await Promise.all([launchChromium(), liveServer()]);
  expect(server.relayUrl).toBeTruthy();
  await owner('POST', '/notes', {
    path: 'Garden/Start here.md',
    content: '# Start here\n\nGo to [[Roses]]. The plan is in [[Private plan]].\n',
  });
  await owner('POST', '/notes', { path: 'Garden/Roses.md', content: '# Roses\n\nPrune in March.\n' });
  await owner('POST', '/notes', { path: 'Secret/Private plan.md', content: `# ${SECRET}\n\nNot public.\n` });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.each(['direct', 'relayed'] as const)('a published folder in Chromium (%s)', (via) => {
  it('is read anonymously, links followed, unpublished links as text; revoked on the next request', async () => {
    const made = await owner('POST', '/publications', { path: 'Garden' });
    expect(made.success, JSON.stringify(made)).toBe(true);
    const url = (via === 'direct' ? made.data.url : made.data.relayUrl) as string;
    expect(url).toMatch(via === 'direct' ? /^http:\/\/127\.0\.0\.1:\d+\/p\/pub_/ : /\/r\/[^/]+\/p\/pub_/);

    const rec = await recordedPage(browser);
    const { page, context } = rec;
    const first = await page.goto(url);
    expect(first?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Garden' }).waitFor();
    expect(await page.getByRole('link', { name: 'Roses' }).count()).toBe(1);
    expect(await page.content()).not.toContain(SECRET);

    await page.getByRole('link', { name: 'Start here' }).click();
    await page.getByRole('heading', { name: 'Start here' }).waitFor();
    // The unpublished note: its name as the author wrote it, as text, never its title or a link.
    const plain = page.locator('span.unpublished', { hasText: 'Private plan' });
    expect(await plain.count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Private plan' }).count()).toBe(0);
    expect(await page.content()).not.toContain(SECRET);

    await page.getByRole('link', { name: 'Roses' }).click();
    await page.getByRole('heading', { name: 'Roses' }).waitFor();
    expect(page.url()).toBe(`${url}Roses.md`);
    await page.getByText('Prune in March.').waitFor();

    // Search within the publication, with the page's own form (a GET, no script).
    await page.getByRole('searchbox', { name: 'Search' }).fill('March');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 result').waitFor();
    await page.getByRole('link', { name: 'Roses' }).waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, `publish-search-390-dark-${via}.png`) });

    // No script ran or was refused, and the styles were allowed by the CSP's hash.
    expect(rec.console.filter((l) => /error|refused/i.test(l))).toEqual([]);
    expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).not.toBe('none');

    expect((await owner('DELETE', `/publications/${made.data.id}`)).success).toBe(true);
    const after = await page.reload();
    expect(after?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Not published' }).waitFor();
    expect(await page.content()).not.toContain('Prune in March');
    await context.close();
  }, 60_000);

  it('reads the same with script turned off in the browser', async () => {
    const made = await owner('POST', '/publications', { path: 'Garden' });
    const url = (via === 'direct' ? made.data.url : made.data.relayUrl) as string;
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(url);
    await page.getByRole('link', { name: 'Start here' }).click();
    await page.getByRole('link', { name: 'Roses' }).click();
    await page.getByText('Prune in March.').waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('Prune');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 result').waitFor();
    await context.close();
    expect((await owner('DELETE', `/publications/${made.data.id}`)).success).toBe(true);
  }, 60_000);
});

describe('a publication behind a password in Chromium', () => {
  it('directly: the form, then the cookie; through the relay: the browser’s sign-in box', async () => {
    const password = 'a long garden password';
    const made = await owner('POST', '/publications', { path: 'Garden/Roses.md', password });
    expect(made.success, JSON.stringify(made)).toBe(true);
    const rec = await recordedPage(browser);
    const { page, context } = rec;
    expect((await page.goto(made.data.url))?.status()).toBe(401);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText('Prune in March.').waitFor();
    const cookie = (await context.cookies(made.data.url)).find((c) => c.name.startsWith('quire_pub_'));
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: `/p/${made.data.id}/` });
    expect(rec.console.filter((l) => /refused/i.test(l))).toEqual([]);
    await context.close();

    const basic = await browser.newContext({ httpCredentials: { username: 'reader', password } });
    const relayed = await basic.newPage();
    expect((await relayed.goto(made.data.relayUrl))?.status()).toBe(200);
    await relayed.getByText('Prune in March.').waitFor();
    await basic.close();
  }, 60_000);
});
