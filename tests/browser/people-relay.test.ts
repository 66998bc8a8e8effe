/**
 * A person through the relay in real Chromium: the server is paired through its embedded relay,
 * so the invite link opens the workspace where it is hosted and names the server's address on the
 * relay. The person enrols a passkey there (the page's origin is the relying party, not the relay
 * many servers share), lands in the workspace with every call going through the relay with their
 * session's token, edits inside the shared folder, is refused outside it, signs out, signs in
 * again, and is refused on the next request once the owner disables them.
 */
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES_KEY } from '../../client-link/src/flow/profiles.ts';
import { recordedPage } from './browser.ts';
import { type PeopleStage, peopleStage, virtualAuthenticator } from './people-stage.ts';

let stage: PeopleStage;
let via: string;

beforeAll(async () => {
  stage = await peopleStage({ PAIRING_MODE: 'relay' });
  const { serverId } = await stage.server.setup();
  via = `${stage.server.relayUrl}/r/${serverId}`;
}, 120_000);
afterAll(() => stage?.stop());

describe('a person through the relay in Chromium', () => {
  it('invite, passkey, workspace through the relay, edit inside, refused outside, sign out, in, revoked', async () => {
    const { browser, base, owner } = stage;
    const ann = (await owner('POST', '/people', { name: 'Ann' })).data;
    await owner('POST', `/people/${ann.id}/shares`, { folder: 'Team', role: 'editor' });
    const link = (await owner('POST', `/people/${ann.id}/invite`)).data.link as string;
    expect(link.startsWith(`${base}/invite#quire_inv_`)).toBe(true);
    expect(link.endsWith(`&via=${encodeURIComponent(via)}`)).toBe(true);

    const rec = await recordedPage(browser);
    const { page, context } = rec;
    const apiCalls: string[] = [];
    page.on('request', (r: Request) => {
      if (r.url().includes('/api/v1/')) apiCalls.push(r.url());
    });
    await virtualAuthenticator(context, page);

    await page.goto(link);
    await page.getByRole('heading', { name: 'Welcome, Ann' }).waitFor();
    expect(page.url()).toBe(`${base}/invite`); // the token left the address bar
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.waitForURL(`${base}/workspace`);
    await page.getByText('Team/plan.md').first().waitFor();
    expect(await page.content()).not.toContain('zzdiaryzz');
    // Every call of the pages and the workspace went to the relay, none to the server's own port.
    expect(apiCalls.length).toBeGreaterThan(3);
    expect(apiCalls.filter((u) => !u.startsWith(`${via}/api/v1/`))).toEqual([]);
    // No cookie crossed the relay; the profile holds the session's token, not a key.
    expect(await context.cookies(stage.server.relayUrl!)).toEqual([]);
    const profile = await page.evaluate(
      (k) => JSON.parse(localStorage.getItem(k) ?? '{}').profiles?.[0],
      PROFILES_KEY,
    );
    expect(profile).toMatchObject({ mode: 'relay', serverUrl: via });
    expect(profile.apiKey.startsWith('quire_ss_')).toBe(true);

    const call = (method: string, path: string, body?: unknown) =>
      page.evaluate(
        async ([m, p, b, at, token]) => {
          const r = await fetch(`${at}/api/v1${p}`, {
            method: m as string,
            headers: { 'content-type': 'application/json', 'x-service-key': token as string },
            body: b === undefined ? undefined : JSON.stringify(b),
          });
          return { status: r.status, text: await r.text() };
        },
        [method, path, body, via, profile.apiKey] as const,
      );
    const edited = await call('PUT', '/notes/Team%2Fplan.md', { content: '# Team plan\n\nEdited by Ann.\n' });
    expect(edited.status, edited.text).toBe(200);
    expect((await owner('GET', '/notes/Team%2Fplan.md')).data.content).toContain('Edited by Ann.');
    expect((await call('PUT', '/notes/Private%2Fdiary.md', { content: 'mine now' })).status).toBe(403);
    expect((await call('GET', '/notes/Private%2Fdiary.md')).status).toBe(404);
    expect((await call('GET', '/notes')).text).not.toContain('Private');

    // Sign out on the sign-in page for that server; the token no longer opens anything.
    const signIn = `${base}/sign-in?via=${encodeURIComponent(via)}`;
    await page.goto(signIn);
    await page.getByRole('heading', { name: 'Signed in as Ann' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
    expect((await call('GET', '/notes')).status).toBe(401);

    // Sign in again with the passkey, through the relay.
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${base}/workspace`);
    await page.getByText('Team/plan.md').first().waitFor();
    const again = await page.evaluate(
      (k) => JSON.parse(localStorage.getItem(k) ?? '{}').profiles?.[0]?.apiKey as string,
      PROFILES_KEY,
    );
    expect(again).not.toBe(profile.apiKey);
    const read = () =>
      page.evaluate(
        async ([at, token]) =>
          (await fetch(`${at}/api/v1/notes/Team%2Fplan.md`, { headers: { 'x-service-key': token! } })).status,
        [via, again] as const,
      );
    expect(await read()).toBe(200);

    // The relay cannot reach the server for a moment (its 503, played here by the browser's
    // network): the sign-in page says so and keeps the session's token; only a 401 forgets it.
    const sessionUrl = `${via}/api/v1/session`;
    await page.route(sessionUrl, (r) =>
      r.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          success: false,
          error: { code: 'SERVER_OFFLINE', message: 'The server is offline.' },
        }),
      }),
    );
    await page.goto(signIn);
    await page.getByRole('alert').getByText('The server is offline.').waitFor();
    await page.unroute(sessionUrl);
    const kept = await page.evaluate(
      (k) => JSON.parse(localStorage.getItem(k) ?? '{}').profiles?.[0]?.apiKey as string,
      PROFILES_KEY,
    );
    expect(kept).toBe(again);

    // The owner disables Ann: her very next request through the relay is refused.
    expect((await owner('PATCH', `/people/${ann.id}`, { disabled: true })).data.disabled).toBe(true);
    expect(await read()).toBe(401);
    expect(rec.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await context.close();
  }, 120_000);
});
