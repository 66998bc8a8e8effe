import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES_KEY, type Profile } from '../../client-link/src/flow/profiles.ts';
import { type LiveServer, liveServer, restOn } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';
import { editorText, fillEditor } from './editor.ts';
import { directProfile, linkWith } from './profile.ts';

let browser: Browser;
let s: LiveServer;
let serverId = '';

beforeAll(async () => {
  await ensureClientBuilt();
  [browser, s] = await Promise.all([launchChromium(), liveServer({ PAIRING_MODE: 'relay' })]);
  serverId = (await s.setup()).serverId;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

/** Another client: REST calls with the first key. */
const rest = (method: string, path: string, body?: unknown) => restOn(s, method, path, body);

/** A workspace page with one stored profile (the link flow has its own tests). */
async function workspace(
  mode: 'direct' | 'relay',
): Promise<{ page: Page; console: string[]; close(): Promise<void> }> {
  const profile: Profile = {
    id: `${serverId}@${mode}`,
    serverId,
    serverUrl: mode === 'direct' ? s.url : `${s.relayUrl}/r/${serverId}`,
    apiKey: s.firstKey,
    mode,
    relayUrl: mode === 'relay' ? s.relayUrl : null,
    name: mode,
    linkedAt: new Date().toISOString(),
  };
  const rec = await recordedPage(browser);
  await rec.context.addInitScript(
    ([k, v]) => localStorage.setItem(k!, v!),
    [PROFILES_KEY, JSON.stringify({ version: 1, active: profile.id, profiles: [profile] })],
  );
  await rec.page.goto(`${s.url}/workspace`);
  await rec.page.getByTestId('note-list').waitFor({ state: 'attached' });
  return { page: rec.page, console: rec.console, close: () => rec.context.close() };
}

const listed = (page: Page, path: string) => page.locator(`[data-testid="note-list"] a[data-path="${path}"]`);

describe('the workspace follows the change feed (Chromium)', () => {
  it('direct (streamed): the list, the tags, an open note and an open editor follow other clients within 2 s', async () => {
    const { page, console: lines, close } = await workspace('direct');
    // Another client creates a note: the list and the tag pane show it.
    expect(
      (await rest('POST', '/notes', { path: 'live/one.md', content: '# One\nfirst #livetag' })).status,
    ).toBe(201);
    await listed(page, 'live/one.md').waitFor({ timeout: 2000 });
    await page.locator('[data-testid="tag-pane"] button[data-tag="livetag"]').waitFor({ timeout: 2000 });
    // The tree shows the new folder (closed: its notes are built when it opens).
    await page.locator('[data-testid="tree"] [data-folder="live"]').waitFor({ timeout: 2000 });

    // The tag pane filters the list.
    await rest('POST', '/notes', { path: 'live/two.md', content: '# Two\nno tag here' });
    await listed(page, 'live/two.md').waitFor({ timeout: 2000 });
    await page.locator('[data-testid="tag-pane"] button[data-tag="livetag"]').click();
    await listed(page, 'live/two.md').waitFor({ state: 'detached', timeout: 2000 });
    expect(await listed(page, 'live/one.md').count()).toBe(1);
    await page.locator('[data-testid="tag-pane"] button[data-tag="livetag"]').click();
    await listed(page, 'live/two.md').waitFor({ timeout: 2000 });

    // An open note follows a REST write and an edit on the server's disk.
    await listed(page, 'live/one.md').click();
    await page.getByTestId('note-body').getByText('first').waitFor();
    await rest('PUT', `/notes/${encodeURIComponent('live/one.md')}`, { content: '# One\nsecond version' });
    await page.getByTestId('note-body').getByText('second version').waitFor({ timeout: 2000 });
    await writeFile(join(s.vaultDir, 'live', 'one.md'), '# One\nedited on disk\n');
    await page.getByTestId('note-body').getByText('edited on disk').waitFor({ timeout: 2500 });

    // A note open in the editor with unsaved text is never overwritten: the conflict is shown.
    await page.getByTestId('edit').click();
    await fillEditor(page, '# One\nmy unsaved words');
    await rest('PUT', `/notes/${encodeURIComponent('live/one.md')}`, { content: '# One\nsomeone else' });
    await page.getByTestId('remote-change').waitFor({ timeout: 2000 });
    expect(await editorText(page)).toBe('# One\nmy unsaved words');
    await page.getByTestId('save').click();
    await page.getByTestId('conflict').waitFor({ state: 'visible' });
    expect(await editorText(page)).toBe('# One\nmy unsaved words');
    // Merged on the server: where both changed, the note keeps the other client's text and this
    // page's whole text goes to a conflict copy linked from the note. Nothing is lost.
    const onDisk = await rest('GET', `/notes/${encodeURIComponent('live/one.md')}`);
    expect(onDisk.json.data.content).toContain('# One\nsomeone else');
    const copy = (onDisk.json.data.links as { path: string }[]).find((l) => l.path.includes('(conflict '));
    expect(copy).toBeDefined();
    expect((await rest('GET', `/notes/${encodeURIComponent(copy!.path)}`)).json.data.content).toBe(
      '# One\nmy unsaved words',
    );
    expect(lines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    for (const l of lines) expect(l).not.toContain(s.firstKey);
    await close();
  });

  it('an editor still loading when the note changes elsewhere opens all the same, and its save merges', async () => {
    const { page, console: lines, close } = await workspace('direct');
    const path = 'live/race.md';
    const url = `/notes/${encodeURIComponent(path)}`;
    expect((await rest('POST', '/notes', { path, content: '# Race\nfirst' })).status).toBe(201);
    await listed(page, path).waitFor({ timeout: 2000 });
    await listed(page, path).click();
    await page.getByTestId('note-body').getByText('first').waitFor();
    // The editor's code is held until the change below has reached this page through the feed.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let asked = false;
    await page.context().route(/\/assets\/codemirror-[\w-]+\.js$/, async (r) => {
      asked = true;
      await held;
      await r.continue();
    });
    await page.getByTestId('edit').click();
    await until('the editor code asked for', () => asked || undefined);
    await rest('PUT', url, { content: '# Race moved on\nsomeone else' });
    // The feed's refresh of the list shows the new title: the page has taken the change.
    await listed(page, path).getByText('Race moved on').waitFor({ timeout: 2000 });
    release();
    // The editor opens on the version it was asked for; the view was not re-shown under it.
    await page.locator('[data-testid="editor"] .cm-content').waitFor({ timeout: 5000 });
    expect(await editorText(page)).toBe('# Race\nfirst');
    // Saved from the version it opened, unchanged: the merge keeps the change made meanwhile.
    await page.getByTestId('save').click();
    await page.getByTestId('note-body').getByText('someone else').waitFor({ timeout: 5000 });
    expect(await page.getByTestId('conflict').isVisible()).toBe(false);
    expect((await rest('GET', url)).json.data.content).toBe('# Race moved on\nsomeone else');
    expect(lines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await close();
  });

  it('a note opened and edited before the first list arrives is not shown again under its editor', async () => {
    const path = 'live/early.md';
    expect((await rest('POST', '/notes', { path, content: '# Early\nfirst' })).status).toBe(201);
    const rec = await recordedPage(browser);
    const { page } = rec;
    await linkWith(
      rec.context,
      directProfile({ serverId, serverUrl: s.url, apiKey: s.firstKey, name: 'early' }),
    );
    // The first list of notes is held until the note is open in the editor.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let asked = false;
    await rec.context.route(/\/api\/v1\/notes\?/, async (r) => {
      asked = true;
      await held;
      await r.continue();
    });
    await page.goto(`${s.url}/workspace`);
    await until('the list asked for', () => asked || undefined);
    await page.evaluate((p) => {
      location.hash = `#note=${encodeURIComponent(p)}`;
    }, path);
    await page.locator(`article[data-path="${path}"] [data-testid="edit"]`).click();
    await page.locator('[data-testid="editor"] .cm-content').waitFor({ timeout: 10_000 });
    release();
    await listed(page, path).waitFor({ timeout: 5000 });
    // The editor is still there: typing and saving reach the file.
    await fillEditor(page, '# Early\nsecond');
    await page.getByTestId('save').click();
    await until(
      'the save on the server',
      async () =>
        (await rest('GET', `/notes/${encodeURIComponent(path)}`)).json.data.content === '# Early\nsecond' ||
        undefined,
    );
    expect(rec.console.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await rec.context.close();
  });

  it('through the relay (long poll): the list and an open note follow within 2 s', async () => {
    const { page, close } = await workspace('relay');
    await rest('POST', '/notes', { path: 'relay/a.md', content: '# A\nrelay first' });
    await listed(page, 'relay/a.md').waitFor({ timeout: 2000 });
    await listed(page, 'relay/a.md').click();
    await page.getByTestId('note-body').getByText('relay first').waitFor();
    await rest('PUT', `/notes/${encodeURIComponent('relay/a.md')}`, { content: '# A\nrelay second' });
    await page.getByTestId('note-body').getByText('relay second').waitFor({ timeout: 2000 });
    await rest('POST', `/notes/${encodeURIComponent('relay/a.md')}/move`, { path: 'relay/b.md' });
    await page.locator('[data-testid="note"][data-path="relay/b.md"]').waitFor({ timeout: 2000 });
    await close();
  });
});
