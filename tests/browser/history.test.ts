import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium } from './browser.ts';
import { fillEditor } from './editor.ts';
import { directProfile, linkWith } from './profile.ts';
import { axeSerious, scrollsSideways, writeVault } from './shell-helpers.ts';

let browser: Browser;
let s: LiveServer;
let vault: Awaited<ReturnType<typeof tempDir>>;
let serverId = '';

beforeAll(async () => {
  vault = await tempDir('quire-history-ui-');
  await writeVault(vault.dir, {
    'Home.md': '# Home\n\nWelcome.\n',
    'Diary.md': '# Diary\n\nFirst words.\n',
    'Doomed.md': '# Doomed\n\nDeleted, then brought back.\n',
  });
  await ensureClientBuilt();
  [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir }),
  ]);
  serverId = (await s.setup()).serverId;
  await mkdir(ARTIFACTS, { recursive: true });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
  await vault?.cleanup();
});

/** A page on the workspace with one stored profile; every dialog (confirm) is accepted. */
async function workspace(width: number, scheme: 'light' | 'dark') {
  const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
  await linkWith(context, directProfile({ serverId, serverUrl: s.url, apiKey: s.firstKey, name: 'history' }));
  const page = await context.newPage();
  // The editor's code (CodeMirror, the live preview) loads on the first Edit: on a busy machine
  // with two test workers that took past 10 s once.
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${s.url}/workspace`);
  await page.locator('[data-testid="tree"]').waitFor({ state: 'attached' });
  return { page, errors, close: () => context.close() };
}

const openNote = async (page: Page, path: string) => {
  await page.evaluate((p) => {
    location.hash = `#note=${encodeURIComponent(p)}`;
  }, path);
  await page.locator(`article[data-path="${path}"]`).waitFor();
};
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, `history-${name}.png`), fullPage: true });

/** Edits the open note in the editor and waits for the file on disk to have `text`. */
async function edit(page: Page, path: string, text: string) {
  await page.getByTestId('edit').click();
  await fillEditor(page, text);
  await page.getByTestId('save').click();
  await until('the condition', async () => (await readFile(join(vault.dir, path), 'utf8')) === text, 10_000);
  await page.locator(`article[data-path="${path}"] [data-testid="edit"]`).waitFor();
}

describe('the History and Trash views (Chromium)', () => {
  it('1280 px: edit twice, see the diff in History, restore the first version; delete, restore from Trash; axe clean', async () => {
    const { page, errors, close } = await workspace(1280, 'light');
    await openNote(page, 'Diary.md');
    await edit(page, 'Diary.md', '# Diary\n\nSecond words.\n');
    await edit(page, 'Diary.md', '# Diary\n\nThird words.\n');

    await page.getByTestId('history-open').click();
    await page.getByTestId('version').nth(2).waitFor();
    const rows = await page
      .getByTestId('version')
      .evaluateAll((lis) => lis.map((li) => `${li.getAttribute('data-change')}|${li.textContent}`));
    // Newest first: the two edits by the workspace's key, then the text first seen on disk.
    expect(rows.map((r) => r.split('|')[0])).toEqual(['update', 'update', 'baseline']);
    expect(rows[0]).toMatch(/edited by first key/);
    expect(rows[0]).toContain('current');
    expect(rows[2]).toMatch(/first seen by another program/);
    expect(await page.locator('[data-testid="version"]').first().getByTestId('version-restore').count()).toBe(
      0,
    );

    // The diff between the first version and the note now.
    const first = page.getByTestId('version').nth(2);
    await first.getByTestId('version-diff').click();
    const diff = page.getByTestId('history-diff');
    await diff.waitFor();
    expect(await diff.locator('.d-del').allTextContents()).toContain('-Third words.');
    expect(await diff.locator('.d-add').allTextContents()).toContain('+First words.');
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, 'diff-1280');

    // Restore (If-Match): the note shows the first text again, and the restore is a version.
    await first.getByTestId('version-restore').click();
    await page.locator('article[data-path="Diary.md"] [data-testid="note-body"]').waitFor();
    await expect
      .poll(() => page.locator('article[data-path="Diary.md"] [data-testid="note-body"]').textContent())
      .toContain('First words.');
    expect(await readFile(join(vault.dir, 'Diary.md'), 'utf8')).toBe('# Diary\n\nFirst words.\n');
    await page.getByTestId('history-open').click();
    await page.getByTestId('version').nth(3).waitFor();
    expect(await page.getByTestId('version').first().getAttribute('data-change')).toBe('restore');

    // Delete: the note goes to the trash; the Trash view restores it with the same bytes.
    const before = await readFile(join(vault.dir, 'Doomed.md'));
    await openNote(page, 'Doomed.md');
    await page.getByTestId('delete').click();
    await expect
      .poll(() => page.getByTestId('status').textContent())
      .toContain('Deleted Doomed.md (moved to the trash)');
    expect(existsSync(join(vault.dir, 'Doomed.md'))).toBe(false);
    await page.getByTestId('trash-open').click();
    const item = page.locator('[data-testid="trash-item"][data-path="Doomed.md"]');
    await item.waitFor();
    expect(await item.textContent()).toMatch(/note · deleted .* by first key /);
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, 'trash-1280');
    await item.getByTestId('trash-restore').click();
    await page.locator('article[data-path="Doomed.md"]').waitFor();
    expect(await readFile(join(vault.dir, 'Doomed.md'))).toEqual(before);
    await page.getByTestId('trash-open').click();
    await page.getByTestId('trash-empty').waitFor();
    expect(errors).toEqual([]);
    await close();
  }, 60_000);

  it('390 px, dark: History and Trash fit the screen, delete for good empties the trash; axe clean', async () => {
    const { page, errors, close } = await workspace(390, 'dark');
    await openNote(page, 'Home.md');
    await edit(
      page,
      'Home.md',
      `# Home\n\n${'A much longer line that has to wrap on a phone. '.repeat(4)}\n`,
    );
    await page.getByTestId('history-open').click();
    await page.getByTestId('version').nth(1).waitFor();
    await page.getByTestId('version').nth(1).getByTestId('version-diff').click();
    await page.getByTestId('history-diff').waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, 'diff-390-dark');
    await page.getByTestId('history-close').click();
    await page.locator('article[data-path="Home.md"] [data-testid="note-body"]').waitFor();

    await page.getByTestId('delete').click();
    await expect.poll(() => page.getByTestId('status').textContent()).toContain('to the trash');
    // On a phone the Trash link is in the drawer.
    await page.getByTestId('drawer-toggle').click();
    await page.getByTestId('trash-open').click();
    const item = page.locator('[data-testid="trash-item"][data-path="Home.md"]');
    await item.waitFor();
    expect(await scrollsSideways(page)).toBe(false);
    expect(await axeSerious(page)).toEqual([]);
    await shot(page, 'trash-390-dark');
    await item.getByTestId('trash-delete').click();
    await page.getByTestId('trash-empty').waitFor();
    const left = await (
      await fetch(`${s.url}/api/v1/trash`, { headers: { 'x-service-key': s.firstKey } })
    ).json();
    expect((left as any).data).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 60_000);
});
