/**
 * A person through the relay in real Chromium: invited by the owner, they enrol and sign in
 * through the relay (a bearer, since the relay passes no cookie), mint a key of theirs, and link
 * the workspace to the relay address with it; there they create and edit a note inside the folder
 * shared with them, and are refused outside it, on the very requests the workspace makes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { launchChromium, recordedPage } from './browser.ts';
import { fillEditor } from './editor.ts';

let browser: Browser;
let server: LiveServer;
let viaRelay = '';

const owner = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { 'x-service-key': server.firstKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
};
const relay = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${viaRelay}/api/v1${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
};

beforeAll(async () => {
  [browser, server] = await Promise.all([launchChromium(), liveServer()]);
  viaRelay = `${server.relayUrl}/r/${(await server.setup()).serverId}`;
  expect((await owner('POST', '/auth/link')).success).toBe(true);
  await owner('POST', '/notes', { path: 'Team/plan.md', content: '# Team plan\n\nShared words.\n' });
  await owner('POST', '/notes', { path: 'Private/diary.md', content: '# zzdiaryzz\n\nNot for Ann.\n' });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('a person through the relay in Chromium', () => {
  it('invite, sign in, link the workspace, edit inside the share, refused outside', async () => {
    const ann = (await owner('POST', '/people', { name: 'Ann' })).data;
    await owner('POST', `/people/${ann.id}/shares`, { folder: 'Team', role: 'editor' });
    const token = (await owner('POST', `/people/${ann.id}/invite`)).data.token as string;
    // Enrol and sign in through the relay: the answers carry a bearer, never a cookie.
    const enrolled = await relay('POST', '/invites/password', { token, password: 'ann password long' });
    expect(enrolled.status, JSON.stringify(enrolled.json)).toBe(200);
    const signedIn = await relay('POST', '/session', { name: 'Ann', password: 'ann password long' });
    expect(signedIn.json.data.token).toMatch(/^quire_ss_/);
    const bearer = { authorization: `Bearer ${signedIn.json.data.token}` };
    const minted = await relay('POST', '/session/keys', { name: 'chromium' }, bearer);
    expect(minted.status, JSON.stringify(minted.json)).toBe(201);

    const rec = await recordedPage(browser);
    const { page, context } = rec;
    await page.goto(`${server.url}/link`);
    await page.locator('#manual-server-url').fill(viaRelay);
    await page.locator('#manual-api-key').fill(minted.json.data.apiKey);
    await page.getByRole('button', { name: 'Link' }).click();
    await page.waitForURL(/\/workspace$/);
    await page.getByTestId('note-list').waitFor({ state: 'attached' });
    await expect.poll(() => page.getByTestId('note-list').textContent()).toContain('Team plan');
    expect(await page.content()).not.toContain('zzdiaryzz');

    // A new note inside the share, through the workspace's own requests to the relay.
    await page.getByTestId('new-note').click();
    await page.getByTestId('new-title').fill('from-ann');
    await page.getByTestId('new-folder').fill('Team');
    await page.getByTestId('create').click();
    await fillEditor(page, '# From Ann\n\nWritten through the relay.\n');
    await page.getByTestId('save').click();
    await page.locator('article[data-path="Team/from-ann.md"] [data-testid="edit"]').waitFor();
    const onDisk = join(server.vaultDir, 'Team', 'from-ann.md');
    await until('the note on disk', async () =>
      (await readFile(onDisk, 'utf8').catch(() => '')).includes('Written through the relay.'),
    );
    await page.getByTestId('edit').click();
    await fillEditor(page, '# From Ann\n\nEdited through the relay.\n');
    await page.getByTestId('save').click();
    await until('the edit on disk', async () =>
      (await readFile(onDisk, 'utf8')).includes('Edited through the relay.'),
    );

    // Outside the share: refused, with the workspace's key and address.
    const outside = await page.evaluate(
      async ([base, key]) => {
        const h = { 'x-service-key': key as string, 'content-type': 'application/json' };
        const put = await fetch(`${base}/api/v1/notes/Private%2Fdiary.md`, {
          method: 'PUT',
          headers: h,
          body: JSON.stringify({ content: 'mine now' }),
        });
        const get = await fetch(`${base}/api/v1/notes/Private%2Fdiary.md`, { headers: h });
        return [put.status, get.status];
      },
      [viaRelay, minted.json.data.apiKey] as const,
    );
    expect(outside).toEqual([403, 404]);
    expect(await readFile(join(server.vaultDir, 'Private', 'diary.md'), 'utf8')).toContain('Not for Ann.');
    expect(rec.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await context.close();
  }, 90_000);
});
