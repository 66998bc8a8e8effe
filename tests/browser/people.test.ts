/**
 * A person in real Chromium: invited by the owner, they enrol a passkey with Chromium's virtual
 * authenticator (CDP WebAuthn), land in the workspace, edit a note in the folder shared with
 * them, are refused outside it, sign out, sign in again with the passkey, and are refused on the
 * next request once the owner disables them. WebAuthn needs a domain, so the page is on localhost.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';

let browser: Browser;
let server: LiveServer;
let base: string;

const owner = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { 'x-service-key': server.firstKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
};

beforeAll(async () => {
  await ensureClientBuilt();
  [browser, server] = await Promise.all([launchChromium(), liveServer({ PAIRING_MODE: 'open-port' })]);
  base = server.url.replace('127.0.0.1', 'localhost');
  await owner('POST', '/notes', { path: 'Team/plan.md', content: '# Team plan\n\nShared words.\n' });
  await owner('POST', '/notes', { path: 'Private/diary.md', content: '# zzdiaryzz\n\nNot for Ann.\n' });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('people in Chromium', () => {
  it('invite, passkey, workspace, edit inside, refused outside, sign out, sign in, revoked', async () => {
    const ann = (await owner('POST', '/people', { name: 'Ann' })).data;
    expect(
      (await owner('POST', `/people/${ann.id}/shares`, { folder: 'Team', role: 'editor' })).success,
    ).toBe(true);
    const link = (await owner('POST', `/people/${ann.id}/invite`)).data.link as string;
    expect(link.startsWith(`${base}/invite#quire_inv_`)).toBe(true);

    const rec = await recordedPage(browser);
    const { page, context } = rec;
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    await page.goto(link);
    await page.getByRole('heading', { name: 'Welcome, Ann' }).waitFor();
    expect(page.url()).toBe(`${base}/invite`); // the token left the address bar
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL(`${base}/workspace`);
    const creds = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(creds.credentials.length).toBe(1);
    // The session is a cookie script cannot read.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const cookies = await context.cookies(base);
    expect(cookies.find((c) => c.name === 'quire_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    // The workspace shows the shared folder and nothing else.
    await page.getByText('Team/plan.md').first().waitFor();
    expect(await page.content()).not.toContain('zzdiaryzz');

    const call = (method: string, path: string, body?: unknown) =>
      page.evaluate(
        async ([m, p, b]) => {
          const r = await fetch(`/api/v1${p}`, {
            method: m as string,
            headers: { 'content-type': 'application/json' },
            body: b === undefined ? undefined : JSON.stringify(b),
          });
          return { status: r.status, text: await r.text() };
        },
        [method, path, body] as const,
      );
    const edited = await call('PUT', '/notes/Team/plan.md', { content: '# Team plan\n\nEdited by Ann.\n' });
    expect(edited.status, edited.text).toBe(200);
    expect((await owner('GET', '/notes/Team/plan.md')).data.content).toContain('Edited by Ann.');
    expect((await call('PUT', '/notes/Private/diary.md', { content: 'mine now' })).status).toBe(403);
    expect((await call('GET', '/notes/Private/diary.md')).status).toBe(404);
    expect((await call('GET', '/notes')).text).not.toContain('Private');

    // Sign out on the sign-in page; the cookie no longer opens anything.
    await page.goto(`${base}/sign-in`);
    await page.getByRole('heading', { name: 'Signed in as Ann' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    expect((await call('GET', '/notes')).status).toBe(401);

    // Sign in again with the passkey.
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${base}/workspace`);
    expect((await call('GET', '/notes/Team/plan.md')).status).toBe(200);

    // The owner disables Ann: her very next request is refused.
    expect((await owner('PATCH', `/people/${ann.id}`, { disabled: true })).data.disabled).toBe(true);
    expect((await call('GET', '/notes/Team/plan.md')).status).toBe(401);
    expect(rec.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await context.close();
  }, 90_000);
});
