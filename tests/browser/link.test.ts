import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES_KEY } from '../../client-link/src/flow/profiles.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { closedPortUrl } from '../helpers/ports.ts';
import { until } from '../helpers/wait.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';
import { editorText, fillEditor } from './editor.ts';

let browser: Browser;
let relayed: LiveServer;
let direct: LiveServer;
const SECRET_PARAMS = ['apiKey', 'relayCode', 'relayUrl'];

beforeAll(async () => {
  await ensureClientBuilt();
  [browser, relayed, direct] = await Promise.all([
    launchChromium(),
    liveServer(),
    liveServer({ PAIRING_MODE: 'open-port' }),
  ]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([relayed?.stop(), direct?.stop()]);
});

const storedProfiles = async (page: Page) =>
  JSON.parse((await page.evaluate((k) => localStorage.getItem(k), PROFILES_KEY)) ?? 'null');

/** What every successful link must leave behind. */
async function expectLinked(page: Page, server: LiveServer, rec: Awaited<ReturnType<typeof recordedPage>>) {
  await page.waitForURL(/\/workspace$/, { timeout: 15_000 });
  const url = new URL(page.url());
  for (const p of SECRET_PARAMS) expect(url.searchParams.has(p), p).toBe(false);
  await page.getByTestId('note-list').waitFor({ state: 'attached' });
  const stored = await storedProfiles(page);
  expect(stored.profiles).toHaveLength(1);
  const key = stored.profiles[0].apiKey as string;
  expect(key).toMatch(/^quire_sk_/);
  expect((await server.setup()).setupComplete).toBe(true);
  // The flow logs its steps, and no line carries a key.
  expect(rec.console.some((l) => l.includes('[quire] link step verify done'))).toBe(true);
  for (const line of rec.console) {
    expect(line).not.toContain(key);
    expect(line).not.toContain(server.firstKey);
  }
  // Only the navigation itself carried the link; no request after it, and no Referer, did.
  for (const r of rec.requests.slice(1)) {
    for (const p of SECRET_PARAMS) expect(r.url).not.toContain(`${p}=`);
    expect(r.referer ?? '').not.toMatch(/apiKey|relayCode/);
  }
  return stored.profiles[0];
}

describe('the /link page in Chromium', () => {
  let relayLink = '';

  it('links through the relay from the setup payload with no input', async () => {
    const setup = await relayed.setup();
    relayLink = setup.links.connect.hostedClient;
    const rec = await recordedPage(browser);
    await rec.page.goto(relayLink);
    const profile = await expectLinked(rec.page, relayed, rec);
    expect(profile).toMatchObject({ mode: 'relay', serverUrl: `${relayed.relayUrl}/r/${setup.serverId}` });
    await rec.context.close();
  });

  it('links directly from an open-port setup link with no input, then works in the workspace', async () => {
    const setup = await direct.setup();
    const rec = await recordedPage(browser);
    const { page } = rec;
    page.on('dialog', (d) => void d.accept());
    await page.goto(setup.links.connect.hostedClient);
    const profile = await expectLinked(page, direct, rec);
    expect(profile).toMatchObject({ mode: 'direct', serverUrl: direct.url });

    // Create a note: it lands on disk.
    // New note: a title and a folder, then the editor on the new note.
    await page.getByTestId('new-note').click();
    await page.getByTestId('new-title').fill('from-browser');
    await page.getByTestId('new-folder').fill('inbox');
    await page.getByTestId('create').click();
    await fillEditor(page, '# From the browser\n\nWritten in #chromium, see [[Other]].\n');
    await page.getByTestId('save').click();
    await page.locator('article[data-path="inbox/from-browser.md"] [data-testid="edit"]').waitFor();
    const onDisk = join(direct.vaultDir, 'inbox', 'from-browser.md');
    expect(await readFile(onDisk, 'utf8')).toContain('Written in #chromium');
    await expect.poll(() => page.getByTestId('tags').textContent()).toContain('#chromium');
    await page.locator('nav[data-testid="tree"] a[data-path="inbox/from-browser.md"]').waitFor();

    // Edit with If-Match; a change made elsewhere meanwhile is a conflict, not an overwrite.
    await page.getByTestId('edit').click();
    await fillEditor(page, '# From the browser\n\nEdited once.\n');
    await page.getByTestId('save').click();
    await until(
      'the condition',
      async () => (await readFile(onDisk, 'utf8')).includes('Edited once.'),
      10_000,
    );
    await page.getByTestId('edit').click();
    const other = await fetch(`${direct.url}/api/v1/notes/${encodeURIComponent('inbox/from-browser.md')}`, {
      method: 'PUT',
      headers: { 'x-service-key': direct.firstKey, 'content-type': 'application/json' },
      body: JSON.stringify({ content: '# From the browser\n\nChanged elsewhere.\n' }),
    });
    expect(other.status).toBe(200);
    await fillEditor(page, '# From the browser\n\nMy late edit.\n');
    await page.getByTestId('save').click();
    await expect.poll(() => page.getByTestId('conflict').textContent()).toMatch(/changed on the server/);
    expect(await readFile(onDisk, 'utf8')).toContain('Changed elsewhere.');
    expect(await editorText(page)).toContain('My late edit.');
    // Nothing lost: the late edit overlapped, so it is whole in a conflict copy linked from the note.
    const copies = (await readdir(dirname(onDisk))).filter((f) => f.startsWith('from-browser (conflict'));
    expect(copies).toHaveLength(1);
    expect(await readFile(join(dirname(onDisk), copies[0]!), 'utf8')).toContain('My late edit.');

    // Search, the agent, then a screenshot that is looked at.
    await page.getByTestId('search').fill('elsewhere');
    await page.getByTestId('search').press('Enter');
    await expect.poll(() => page.getByTestId('search-results').textContent()).toContain('From the browser');
    await page.locator('[data-testid="search-results"] a').first().click();
    await page.locator('article[data-path="inbox/from-browser.md"]').waitFor();
    await page.getByTestId('chat-input').fill('summarize this');
    await page.getByTestId('chat-send').click();
    await expect
      .poll(() => page.getByTestId('chat-reply').first().textContent())
      .toContain('From the browser');
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'workspace.png'), fullPage: true });

    // Move (links follow), then delete.
    await page.getByTestId('move').click();
    await page.getByTestId('move-to').fill('archive/from-browser.md');
    await page.getByTestId('move-save').click();
    await page.locator('article[data-path="archive/from-browser.md"]').waitFor();
    await until(
      'the condition',
      async () =>
        (await readFile(join(direct.vaultDir, 'archive', 'from-browser.md'), 'utf8').catch(() => '')) !== '',
    );
    await page.getByTestId('delete').click();
    await expect
      .poll(() => page.getByTestId('status').textContent())
      .toContain('Deleted archive/from-browser.md');
    await expect(readFile(join(direct.vaultDir, 'archive', 'from-browser.md'))).rejects.toThrow();
    for (const line of rec.console) expect(line).not.toContain(direct.firstKey);
    await rec.context.close();
  }, 60_000);

  /** Opens `link`, expects the manual form with `message`, and returns the page. */
  async function expectManualForm(link: string, message: RegExp, prefill: string) {
    const rec = await recordedPage(browser);
    await rec.page.goto(link);
    const alert = rec.page.getByTestId('link-error');
    await alert.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await alert.textContent()).toMatch(message);
    await rec.page.getByTestId('manual-form').waitFor();
    expect(await rec.page.locator('#manual-server-url').inputValue()).toBe(prefill);
    expect(await rec.page.locator('#manual-api-key').inputValue()).toBe('');
    const url = new URL(rec.page.url());
    for (const p of SECRET_PARAMS) expect(url.searchParams.has(p), p).toBe(false);
    expect(await storedProfiles(rec.page)).toBeNull();
    return rec;
  }

  it('ends a bad key on the manual form with a clear message; manual entry then succeeds', async () => {
    const wrong = `quire_sk_${'W'.repeat(43)}`;
    const rec = await expectManualForm(
      `${direct.url}/link?serverUrl=${encodeURIComponent(direct.url)}&apiKey=${wrong}`,
      /did not accept this API key/,
      direct.url,
    );
    await rec.page.locator('#manual-api-key').fill(direct.firstKey);
    await rec.page.getByRole('button', { name: 'Link' }).click();
    await rec.page.waitForURL(/\/workspace$/);
    await rec.page.getByTestId('note-list').waitFor({ state: 'attached' });
    expect((await storedProfiles(rec.page)).profiles[0]).toMatchObject({ serverUrl: direct.url });
    for (const line of rec.console) {
      expect(line).not.toContain(wrong);
      expect(line).not.toContain(direct.firstKey);
    }
    await rec.context.close();
  });

  it('keeps several profiles (one server direct and through the relay, by hand), switches and forgets', async () => {
    const rec = await recordedPage(browser);
    const { page } = rec;
    page.on('dialog', (d) => void d.accept());
    const mint = async (s: LiveServer) => {
      const res = await fetch(`${s.url}/api/v1/auth/keys`, {
        method: 'POST',
        headers: { 'x-service-key': s.firstKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'browser' }),
      });
      return ((await res.json()) as any).data.apiKey as string;
    };
    const linkByHand = async (serverUrl: string, key: string) => {
      await page.goto(`${relayed.url}/link`);
      // Nothing to link yet: an explanation, no error.
      await expect.poll(() => page.getByTestId('link-welcome').textContent()).toMatch(/not linked yet/);
      expect(await page.getByTestId('link-error').isHidden()).toBe(true);
      await page.locator('#manual-server-url').fill(serverUrl);
      await page.locator('#manual-api-key').fill(key);
      await page.getByRole('button', { name: 'Link' }).click();
      await page.waitForURL(/\/workspace$/);
    };
    await linkByHand(relayed.url, await mint(relayed));
    const viaRelay = `${relayed.relayUrl}/r/${(await relayed.setup()).serverId}`;
    await linkByHand(viaRelay, await mint(relayed));

    // The workspace works through the relay address: a note made here lands in that server's vault.
    await page.getByTestId('new-note').click();
    await page.getByTestId('new-title').fill('via-relay');
    await page.getByTestId('create').click();
    await fillEditor(page, '# Via relay\n');
    await page.getByTestId('save').click();
    await page.locator('article[data-path="via-relay.md"] [data-testid="edit"]').waitFor();
    expect(await readFile(join(relayed.vaultDir, 'via-relay.md'), 'utf8')).toBe('# Via relay\n');

    const select = page.getByTestId('profiles');
    expect(await select.locator('option').count()).toBe(2);
    expect((await storedProfiles(page)).active).toContain(viaRelay);
    await select.selectOption({ index: 0 });
    await page.waitForURL(/\/workspace$/);
    await expect.poll(async () => (await storedProfiles(page)).active).toContain(`@${relayed.url}`);
    await expect.poll(() => page.getByTestId('profiles').inputValue()).toContain(`@${relayed.url}`);
    await page.getByTestId('forget').click();
    await expect.poll(async () => (await storedProfiles(page)).profiles.length).toBe(1);
    expect((await storedProfiles(page)).profiles[0].serverUrl).toBe(viaRelay);
    await page.getByTestId('note-list').waitFor({ state: 'attached' });
    await expect.poll(() => page.getByTestId('note-list').textContent()).toContain('Via relay');
    await rec.context.close();
  }, 60_000);

  it('ends a spent pairing code on the manual form', async () => {
    expect(relayLink).not.toBe('');
    const rec = await expectManualForm(relayLink, /expired or already used/, '');
    const code = new URL(relayLink).searchParams.get('relayCode')!;
    for (const line of rec.console) expect(line).not.toContain(code);
    await rec.context.close();
  });

  it('ends an unreachable server on the manual form', async () => {
    const gone = await closedPortUrl();
    const rec = await expectManualForm(
      `${direct.url}/link?serverUrl=${encodeURIComponent(gone)}&apiKey=${direct.firstKey}`,
      /Could not reach 127\.0\.0\.1/,
      gone,
    );
    for (const line of rec.console) expect(line).not.toContain(direct.firstKey);
    await rec.context.close();
  });
});
