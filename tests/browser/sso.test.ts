/**
 * Single sign-on in real Chromium against a real OpenID Connect provider (oidc-provider on
 * loopback, its development login and consent pages): a person invited by the owner links their
 * identity from the invite page, lands in the workspace, signs out, signs in again with the
 * provider from the sign-in page, and a stranger the provider knows but Quire does not is told so
 * on the sign-in page, never let in.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedPage } from './browser.ts';
import { type PeopleStage, peopleStage } from './people-stage.ts';

const SECRET = 'a-client-secret-for-the-test-only';
let stage: PeopleStage;
let browser: PeopleStage['browser'];
let base: string;
let owner: PeopleStage['owner'];
let idp: Server;

beforeAll(async () => {
  // The provider's address first (the server is configured with it), its clients once Quire's
  // callback address is known.
  idp = createServer();
  await new Promise<void>((ok) => idp.listen(0, '127.0.0.1', ok));
  const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  stage = await peopleStage({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: 'quire', OIDC_CLIENT_SECRET: SECRET });
  ({ browser, base, owner } = stage);
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'quire',
        client_secret: SECRET,
        redirect_uris: [`${base}/api/v1/session/sso/callback`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, name: id }) }),
    cookies: { keys: ['a-cookie-key-for-the-test-only'] },
  });
  idp.on('request', provider.callback());
}, 120_000);
afterAll(async () => {
  await stage?.stop();
  await new Promise<void>((ok) => (idp ? idp.close(() => ok()) : ok()));
});

/** Signs in at the provider's development pages as `login`, and consents when asked. */
async function atProvider(page: Page, login: string) {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  // Consent is asked once per account and client; Quire's own address ends the walk.
  while (!page.url().startsWith(base)) {
    const consent = page.locator('button[type="submit"]');
    await Promise.race([consent.waitFor(), page.waitForURL((u) => u.href.startsWith(base))]);
    if (!page.url().startsWith(base)) await consent.click();
  }
}

describe('single sign-on in Chromium', () => {
  it('invite, link with the provider, workspace, sign out, sign in again; a stranger is refused', async () => {
    const ann = (await owner('POST', '/people', { name: 'Ann' })).data;
    await owner('POST', `/people/${ann.id}/shares`, { folder: 'Team', role: 'editor' });
    const link = (await owner('POST', `/people/${ann.id}/invite`)).data.link as string;

    const { page, context, console: logs } = await recordedPage(browser);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Welcome, Ann' }).waitFor();
    await page.getByRole('button', { name: /Use single sign-on/ }).click();
    await page.locator('input[name="login"]').waitFor();
    expect(new URL(page.url()).host).not.toBe(new URL(base).host);
    await atProvider(page, 'ann@idp');
    await page.waitForURL(`${base}/workspace`);
    await page.getByText('Team/plan.md').first().waitFor();
    expect(await page.content()).not.toContain('zzdiaryzz');
    const me = (await owner('GET', `/people/${ann.id}`)).data;
    expect(me.signIn.sso).toBe(true);

    // Sign out, then in again through the provider (its own session skips the login form).
    await page.goto(`${base}/sign-in`);
    await page.getByRole('heading', { name: 'Signed in as Ann' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: /Sign in with single sign-on/ }).click();
    await page.waitForURL(`${base}/workspace`);
    const status = await page.evaluate(async () => (await fetch('/api/v1/notes/Team%2Fplan.md')).status);
    expect(status).toBe(200);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await context.close();

    // Someone the provider knows but no invite linked: told on the sign-in page, no session.
    const stranger = await recordedPage(browser);
    await stranger.page.goto(`${base}/sign-in`);
    await stranger.page.getByRole('button', { name: /Sign in with single sign-on/ }).click();
    await stranger.page.locator('input[name="login"]').waitFor();
    await atProvider(stranger.page, 'mallory@idp');
    await stranger.page.waitForURL(`${base}/sign-in`);
    await stranger.page.getByRole('alert').filter({ hasText: 'not linked to anyone here' }).waitFor();
    expect(stranger.page.url()).toBe(`${base}/sign-in`); // the error left the address bar
    const cookies = await stranger.context.cookies(base);
    expect(cookies.find((c) => c.name === 'quire_session')).toBeUndefined();
    await stranger.context.close();
  }, 120_000);
});
