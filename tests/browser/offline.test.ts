/**
 * Offline edits that come back, and a conflict resolved in one step, in real Chromium against the
 * real server behind a proxy that is stopped and started (the server gone, as far as the page knows).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { tempDir } from '../helpers/app.ts';
import type { LiveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { ARTIFACTS } from './browser.ts';
import { axeAll, type switchableProxy, workspaceStage } from './shell-helpers.ts';

let s: LiveServer;
let vault: Awaited<ReturnType<typeof tempDir>>;
let proxy: Awaited<ReturnType<typeof switchableProxy>>;
let serverId = '';

let stage: Awaited<ReturnType<typeof workspaceStage>>;
beforeAll(async () => {
  stage = await workspaceStage('quire-offline-', {
    'Home.md': '# Home\n\nWelcome.\n',
    'Quiet.md': '# Quiet\n\nUntouched.\n',
    'Trips/Plan.md': '# Plan\n\nDay one: the museum.\nDay two: the harbour.\nDay three: rest.\n',
    'Trips/Packing.md': '# Packing\n\nBoots.\nA coat.\n',
    'Trips/Budget.md': '# Budget\n\nTrain: 40.\nHotel: 200.\n',
  });
  ({ s, serverId, proxy, vault } = stage);
}, 90_000);
afterAll(() => stage?.stop());

/** A page on the workspace, through the proxy, with one stored profile (kept across reloads). */
const workspace = (scheme: 'light' | 'dark' = 'light', width = 1280) =>
  stage.open({ width, scheme, name: 'offline', keep: true });

const openNote = async (page: Page, path: string) => {
  await page.evaluate((p) => {
    location.hash = `#note=${encodeURIComponent(p)}`;
  }, path);
  await page.locator(`article[data-path="${path}"]`).waitFor();
};

/** The server's API, with the owner's key (another device, as far as the page knows). */
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${s.url}/api/v1${path}`, {
    method,
    headers: { 'x-service-key': s.firstKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as any;
};
const disk = (path: string) => readFile(join(vault.dir, path), 'utf8');

/** Waits until the copy of `path` kept for offline reading is in the page's storage. */
const kept = (page: Page, path: string) =>
  page.waitForFunction(
    (p) =>
      Object.keys(localStorage).some(
        (k) => k.startsWith('quire.offline.notes.v1:') && localStorage.getItem(k)!.includes(`"path":"${p}"`),
      ),
    path,
  );

describe('offline edits that come back (Chromium)', () => {
  it('edits to two notes and a new note, typed offline, survive a reload and merge on reconnect; what needs a look is listed', async () => {
    const { page, errors, close } = await workspace();
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, undefined, {
      timeout: 15_000,
    });
    for (const p of ['Trips/Plan.md', 'Trips/Packing.md']) {
      await openNote(page, p);
      await kept(page, p);
    }
    await proxy.stop();
    try {
      await page.reload();
      await page.getByTestId('offline').waitFor({ state: 'visible' });
      await openNote(page, 'Trips/Plan.md');
      const plan = await page.getByTestId('offline-draft').inputValue();
      await page
        .getByTestId('offline-draft')
        .fill(plan.replace('Day three: rest.', 'Day three: the old town.'));
      await page.getByTestId('draft-status').getByText('Kept on this device').waitFor();
      await openNote(page, 'Trips/Packing.md');
      await page.getByTestId('offline-draft').fill('# Packing\n\nBoots.\nA coat.\nA hat.\n');
      await page.getByTestId('draft-status').getByText('Kept on this device').waitFor();
      // A new note, made offline from the New note form.
      await page.getByTestId('new-note').click();
      await page.getByTestId('new-title').fill('Ideas');
      await page.getByTestId('new-folder').fill('Trips');
      await page.getByTestId('create').click();
      await page.locator('article[data-path="Trips/Ideas.md"][data-offline]').waitFor();
      await page.getByTestId('offline-draft').fill('# Ideas\n\nA boat trip.\n');
      await page.getByTestId('draft-status').getByText('Kept on this device').waitFor();
      expect(await axeAll(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, 'offline-new-note.png') });
      // Meanwhile, elsewhere: the plan changed on another line, a note took the new note's name.
      const before = await api('GET', '/notes/Trips%2FPlan.md');
      await api('PUT', '/notes/Trips%2FPlan.md', {
        content: before.data.content.replace('Day one: the museum.', 'Day one: the castle.'),
      });
      await api('POST', '/notes', { path: 'Trips/Ideas.md', content: '# Ideas\n\nSomeone else’s.\n' });
      // Nothing typed offline is lost to a reload.
      await page.reload();
      await page.getByTestId('offline').waitFor({ state: 'visible' });
      await openNote(page, 'Trips/Ideas.md');
      expect(await page.getByTestId('offline-draft').inputValue()).toBe('# Ideas\n\nA boat trip.\n');
    } finally {
      await proxy.start();
    }
    const report = page.getByTestId('sync-report');
    await report.waitFor({ timeout: 20_000 });
    await report.getByText('Trips/Ideas 2.md').waitFor();
    expect(await page.getByTestId('sync-clean').textContent()).toMatch(/Trips\/Plan\.md: merged/);
    expect(await page.getByTestId('sync-clean').textContent()).toMatch(/Trips\/Packing\.md: saved/);
    expect(await page.getByTestId('sync-look').textContent()).toMatch(/Trips\/Ideas\.md was taken meanwhile/);
    await page.screenshot({ path: join(ARTIFACTS, 'offline-sync-report.png') });
    expect(await disk('Trips/Plan.md')).toBe(
      '# Plan\n\nDay one: the castle.\nDay two: the harbour.\nDay three: the old town.\n',
    );
    expect(await disk('Trips/Packing.md')).toBe('# Packing\n\nBoots.\nA coat.\nA hat.\n');
    expect(await disk('Trips/Ideas 2.md')).toBe('# Ideas\n\nA boat trip.\n');
    expect(await disk('Trips/Ideas.md')).toBe('# Ideas\n\nSomeone else’s.\n');
    // Sent once: the drafts are gone from the device, a reload sends nothing again.
    expect(
      await page.evaluate(() =>
        Object.keys(localStorage)
          .filter((k) => k.startsWith('quire.drafts.v1:'))
          .map((k) => localStorage.getItem(k)),
      ),
    ).toEqual(['{}']);
    expect(await axeAll(page)).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  }, 90_000);
});

describe('the network cut (playwright offline mode) and storage full (Chromium)', () => {
  it('says at once when a draft cannot be kept; the text kept once room is made is sent when the network is back', async () => {
    const { context, page, errors, close } = await workspace();
    await openNote(page, 'Home.md');
    await kept(page, 'Home.md');
    await context.setOffline(true);
    await page.evaluate(() => {
      location.hash = '#note=Trips%2FPacking.md';
    });
    await openNote(page, 'Home.md');
    await page.locator('article[data-path="Home.md"][data-offline]').waitFor();
    // Fill this origin's storage to the last character.
    await page.evaluate(() => {
      let n = 0;
      for (let size = 1 << 20; size >= 1; size >>= 1)
        for (;;) {
          try {
            localStorage.setItem(`junk-${n++}`, 'j'.repeat(size));
          } catch {
            break;
          }
        }
    });
    // Larger than every kept note it may evict: refused, and the page says so.
    await page.getByTestId('offline-draft').fill(`# Home\n\n${'Long. '.repeat(10_000)}\n`);
    await page.getByTestId('draft-status').getByText('storage is full').waitFor();
    expect(await page.getByTestId('draft-status').getAttribute('class')).toBe('alert');
    await page.evaluate(() => {
      for (const k of Object.keys(localStorage)) if (k.startsWith('junk-')) localStorage.removeItem(k);
    });
    await page.getByTestId('offline-draft').fill('# Home\n\nWelcome.\nTyped with the network cut.\n');
    await page.getByTestId('draft-status').getByText('Kept on this device').waitFor();
    await context.setOffline(false);
    await page.getByTestId('sync-clean').getByText('Home.md').waitFor({ timeout: 15_000 });
    await until(
      'the draft on disk',
      async () => (await disk('Home.md')).includes('Typed with the network cut.'),
      8000,
    );
    expect(errors).toEqual([]);
    await close();
  }, 60_000);
});

describe('a draft the server refuses (Chromium)', () => {
  it('is listed as needing a look, stays on the device, shows above its note, and can be discarded', async () => {
    const { page, close } = await workspace();
    // A draft from an earlier session whose base the server refuses (longer than any checksum).
    await page.evaluate((id) => {
      const draft = {
        path: 'Quiet.md',
        text: '# Quiet\n\nRefused.\n',
        baseChecksum: 'x'.repeat(300),
        savedAt: new Date().toISOString(),
      };
      localStorage.setItem(`quire.drafts.v1:${id}`, JSON.stringify({ 'Quiet.md': draft }));
    }, `${serverId}@direct`);
    await page.reload();
    await page.getByTestId('sync-look').getByText('Quiet.md: not sent').waitFor();
    await openNote(page, 'Quiet.md');
    expect(await page.getByTestId('draft-pending-text').inputValue()).toBe('# Quiet\n\nRefused.\n');
    expect(await disk('Quiet.md')).toBe('# Quiet\n\nUntouched.\n');
    expect(await axeAll(page)).toEqual([]);
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('draft-discard').click();
    await page.getByTestId('draft-pending').waitFor({ state: 'detached' });
    expect(
      await page.evaluate((id) => localStorage.getItem(`quire.drafts.v1:${id}`), `${serverId}@direct`),
    ).toBe('{}');
    await close();
  }, 60_000);
});

describe('a conflict resolved in one step (Chromium)', () => {
  /** Makes a conflict on `path`: an edit from the first version overlapping one made since. */
  async function conflictOn(path: string, mine: (t: string) => string, theirs: (t: string) => string) {
    const first = (await api('GET', `/notes/${encodeURIComponent(path)}`)).data;
    await api('PUT', `/notes/${encodeURIComponent(path)}`, { content: theirs(first.content) });
    const merged = await api('PUT', `/notes/${encodeURIComponent(path)}`, {
      content: mine(first.content),
      base: first.checksum,
    });
    expect(merged.data.merge.conflicts).toBeGreaterThan(0);
    return merged.data.merge.copy as string;
  }

  it('the banner compares the note and its copy; one action writes the chosen text, removes the line and the copy', async () => {
    const copy = await conflictOn(
      'Trips/Budget.md',
      (t) => t.replace('Hotel: 200.', 'Hotel: 180.'),
      (t) => t.replace('Hotel: 200.', 'Hotel: 220.'),
    );
    const { page, errors, close } = await workspace();
    await openNote(page, 'Trips/Budget.md');
    const banner = page.getByTestId('conflict-banner');
    await banner.waitFor();
    await page.getByTestId('conflict-copy').getByText('Hotel: 180.').waitFor();
    expect(await page.getByTestId('conflict-note').textContent()).toContain('Hotel: 220.');
    // The lines only one side has are marked, and named for a screen reader.
    expect(await page.getByTestId('conflict-copy').locator('mark').textContent()).toBe(
      'only in the copy: Hotel: 180.',
    );
    expect(await axeAll(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'offline-conflict-banner.png') });
    // By keyboard: the action is a button that Enter presses.
    await page.getByTestId('conflict-keep-copy').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('status').getByText('Resolved the conflict').waitFor();
    await until(
      'the copy deleted',
      async () => !(await readdir(join(vault.dir, 'Trips'))).some((f) => f.includes('(conflict')),
      8000,
    );
    expect(await disk('Trips/Budget.md')).toBe('# Budget\n\nTrain: 40.\nHotel: 180.\n');
    expect(copy).toMatch(/^Trips\/Budget \(conflict /);
    await page.locator('article[data-path="Trips/Budget.md"]').waitFor();
    expect(await page.getByTestId('conflict-banner').count()).toBe(0);
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    // Both writes are in the history: the note's version with the line can be restored.
    const versions = (await api('GET', '/notes/Trips%2FBudget.md/versions')).data;
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
    await close();
  }, 60_000);

  it('keep both, at 390 px dark: every line of each side once; axe clean', async () => {
    await api('POST', '/notes', { path: 'Trips/Both.md', content: '# Both\n\nOne.\nTwo.\n' });
    await conflictOn(
      'Trips/Both.md',
      (t) => t.replace('Two.', 'Two, mine.'),
      (t) => t.replace('Two.', 'Two, theirs.'),
    );
    const { page, close } = await workspace('dark', 390);
    await openNote(page, 'Trips/Both.md');
    await page.getByTestId('conflict-copy').getByText('Two, mine.').waitFor();
    expect(await axeAll(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'offline-conflict-390-dark.png') });
    await page.getByTestId('conflict-keep-both').click();
    await page.getByTestId('status').getByText('kept both texts').waitFor();
    expect(await disk('Trips/Both.md')).toBe('# Both\n\nOne.\nTwo, theirs.\nTwo, mine.\n');
    expect((await readdir(join(vault.dir, 'Trips'))).filter((f) => f.includes('(conflict'))).toEqual([]);
    await close();
  }, 60_000);
});
