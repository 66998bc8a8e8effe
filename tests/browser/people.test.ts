/**
 * A person in real Chromium: invited by the owner, they enrol a passkey with Chromium's virtual
 * authenticator (CDP WebAuthn), land in the workspace, edit a note in the folder shared with
 * them, are refused outside it, sign out, sign in again with the passkey, and are refused on the
 * next request once the owner disables them. WebAuthn needs a domain, so the page is on localhost.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES_KEY } from '../../client-link/src/flow/profiles.ts';
import { ARTIFACTS, recordedPage } from './browser.ts';
import { type PeopleStage, peopleStage, virtualAuthenticator } from './people-stage.ts';

let stage: PeopleStage;
let browser: PeopleStage['browser'];
let base: string;
let owner: PeopleStage['owner'];

beforeAll(async () => {
  stage = await peopleStage();
  ({ browser, base, owner } = stage);
}, 120_000);
afterAll(() => stage?.stop());

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
    const { cdp, authenticatorId } = await virtualAuthenticator(context, page);

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

    // The owner's people page shows who did what: Ann, the browser she signed in with, the edit.
    const ownerPage = await browser.newContext();
    const profile = {
      id: 'owner',
      serverId: 'x',
      serverUrl: base,
      apiKey: stage.server.firstKey,
      mode: 'direct',
      relayUrl: null,
      name: 'owner',
      linkedAt: new Date().toISOString(),
    };
    await ownerPage.addInitScript(
      ([k, v]) => localStorage.setItem(k!, v!),
      [PROFILES_KEY, JSON.stringify({ version: 1, active: 'owner', profiles: [profile] })],
    );
    const op = await ownerPage.newPage();
    await op.goto(`${base}/people`);
    const edit = op.getByTestId('activity').locator('li', { hasText: 'Team/plan.md' }).first();
    await edit.waitFor();
    expect(await edit.textContent()).toMatch(/Ann \(Chrome on Linux\): update Team\/plan\.md/);
    await op.emulateMedia({ colorScheme: 'dark' });
    await op.setViewportSize({ width: 390, height: 844 });
    await op.screenshot({ path: join(ARTIFACTS, 'people-activity-390-dark.png'), fullPage: true });
    await ownerPage.close();

    // The owner disables Ann: her very next request is refused.
    expect((await owner('PATCH', `/people/${ann.id}`, { disabled: true })).data.disabled).toBe(true);
    expect((await call('GET', '/notes/Team/plan.md')).status).toBe(401);
    expect(rec.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await context.close();
  }, 90_000);
});
