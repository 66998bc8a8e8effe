import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer, restOn } from '../helpers/live-server.ts';
import { freePort } from '../helpers/ports.ts';
import { until } from '../helpers/wait.ts';
import { type ServerProc, startServerProc } from '../reliability/scenarios/procs.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';
import { editorText, openLiveEditor, typeAt } from './editor.ts';
import { directProfile } from './profile.ts';

let browser: Browser;
let s: LiveServer;
let serverId = '';
const contexts: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  await ensureClientBuilt();
  [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', LIVE_DEBOUNCE_MS: '300' }),
  ]);
  serverId = (await s.setup()).serverId;
}, 120_000);
afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await s?.stop();
});

/** Another client: REST calls with the first key. */
const rest = (method: string, path: string, body?: unknown) => restOn(s, method, path, body);

/** A workspace page with one direct profile for `apiKey`, the note open in its live editor. */
async function liveEditorPage(
  apiKey: string,
  name: string,
  path: string,
): Promise<{ page: Page; console: string[] }> {
  const profile = directProfile({ id: `${serverId}@${name}`, serverId, serverUrl: s.url, apiKey, name });
  const rec = await recordedPage(browser);
  contexts.push(rec.context);
  await openLiveEditor(rec.context, rec.page, profile, s.url, path);
  return rec;
}

describe('editing together (Chromium)', () => {
  it('two pages type at once and converge with the file on disk; a read-only key watches', async () => {
    expect(
      (await rest('POST', '/notes', { path: 'Team/plan.md', content: '# Plan\n\nmiddle\n' })).status,
    ).toBe(201);
    const viewerKey = (
      await rest('POST', '/auth/keys', { name: 'viewer', scope: { capabilities: ['notes:read'] } })
    ).json.data.apiKey as string;
    const a = await liveEditorPage(s.firstKey, 'a', 'Team/plan.md');
    const b = await liveEditorPage(s.firstKey, 'b', 'Team/plan.md');
    const v = await liveEditorPage(viewerKey, 'v', 'Team/plan.md');
    // Each sees the others by name (the viewer's key is named "viewer").
    await until('a sees viewer', async () =>
      ((await a.page.getByTestId('live-people').textContent()) ?? '').includes('viewer'),
    );

    await Promise.all([typeAt(a.page, 'start', 'from a. '), typeAt(b.page, 'end', 'from b.')]);
    const expected = 'from a. # Plan\n\nmiddle\nfrom b.';
    for (const p of [a.page, b.page, v.page])
      await until('converged', async () => (await editorText(p)) === expected, 10_000);
    await until(
      'on disk',
      async () => (await readFile(join(s.vaultDir, 'Team/plan.md'), 'utf8')) === expected,
      5_000,
    );
    // Remote cursors are drawn with the other's name.
    await a.page.locator('.cm-ySelectionInfo').first().waitFor({ state: 'attached' });
    // As a person on a phone in dark mode sees it (kept in the artifacts to look at).
    await a.page.emulateMedia({ colorScheme: 'dark' });
    await a.page.setViewportSize({ width: 390, height: 844 });
    await a.page.screenshot({ path: join(ARTIFACTS, 'co-edit-390-dark.png') });

    // The viewer cannot type: its editor is not editable, and the text stays.
    expect(
      await v.page.locator('[data-testid="live-editor"] .cm-content').getAttribute('contenteditable'),
    ).toBe('false');
    await v.page.locator('[data-testid="live-editor"] .cm-content').click();
    await v.page.keyboard.type('viewer typing');
    expect(await editorText(v.page)).toBe(expected);

    // A REST write enters every open editor.
    const sum = (await rest('GET', '/notes/Team%2Fplan.md')).json.data.checksum;
    expect(
      (await rest('PUT', '/notes/Team%2Fplan.md', { content: `${expected}\nfrom rest`, base: sum })).status,
    ).toBe(200);
    for (const p of [a.page, b.page, v.page])
      await until('rest write in', async () => (await editorText(p)).endsWith('from rest'), 10_000);
    expect(await readFile(join(s.vaultDir, 'Team/plan.md'), 'utf8')).toBe(`${expected}\nfrom rest`);
    for (const r of [a, b]) expect(r.console.filter((l) => /error|violat/i.test(l)).join('\n')).toBe('');
    // The viewer's workspace meets 403s on what its key may not use (not the live session's doing).
    expect(v.console.filter((l) => /violat|websocket/i.test(l)).join('\n')).toBe('');
  });

  it('a restart of the server: the page reconnects and goes on, nothing typed is lost', async () => {
    const data = await tempDir('quire-co-edit-restart-');
    const env = { PAIRING_MODE: 'open-port', LIVE_DEBOUNCE_MS: '2000', DATA_DIR: join(data.dir, 'data') };
    let one: LiveServer | null = await liveServer(env);
    let two: LiveServer | null = null;
    const saved = s;
    try {
      const port = new URL(one.url).port;
      s = one;
      serverId = (await one.setup()).serverId;
      expect((await rest('POST', '/notes', { path: 'r.md', content: 'kept\n' })).status).toBe(201);
      const a = await liveEditorPage(one.firstKey, 'restart', 'r.md');
      await typeAt(a.page, 'end', 'before ');
      // Stopped while the debounce still holds the typing: the stop writes it.
      await one.stop();
      one = null;
      await a.page.locator('[data-testid="live-status"][data-state="reconnecting"]').waitFor();
      two = await liveServer({ ...env, PORT: port });
      s = two;
      await a.page.locator('[data-testid="live-status"][data-state="live"]').waitFor({ timeout: 20_000 });
      await typeAt(a.page, 'end', 'after');
      await until(
        'on disk',
        async () => (await readFile(join(env.DATA_DIR, 'notes', 'r.md'), 'utf8')) === 'kept\nbefore after',
        10_000,
      );
      expect(await editorText(a.page)).toBe('kept\nbefore after');
    } finally {
      s = saved;
      await one?.stop();
      await two?.stop();
      await data.cleanup();
    }
  });

  it('a SIGKILL of the server mid-session: nothing acknowledged is lost, the typing in flight lands after', async () => {
    const data = await tempDir('quire-co-edit-kill-');
    const env = {
      PAIRING_MODE: 'open-port',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      LIVE_DEBOUNCE_MS: '2000',
      DATA_DIR: join(data.dir, 'data'),
    };
    const onDisk = () => readFile(join(env.DATA_DIR, 'notes', 'k.md'), 'utf8');
    let proc: ServerProc | null = await startServerProc(env, 'co-edit-kill');
    const saved = s;
    try {
      const setup = (await (await fetch(`${proc.url}/api/v1/system/setup`)).json()) as any;
      s = { ...saved, url: proc.url, firstKey: setup.data.apiKey };
      serverId = setup.data.serverId;
      expect((await rest('POST', '/notes', { path: 'k.md', content: 'kept\n' })).status).toBe(201);
      const a = await liveEditorPage(s.firstKey, 'kill', 'k.md');
      await typeAt(a.page, 'end', 'acked ');
      // Acknowledged: the server said the file holds it.
      await until('acknowledged', async () => (await onDisk()) === 'kept\nacked ', 15_000);
      await a.page.locator('[data-testid="live-status"][data-state="saved"]').waitFor({ timeout: 15_000 });
      // Typing the server has not written yet (the debounce holds it 2 s), then the kill.
      await typeAt(a.page, 'end', 'inflight');
      await proc.kill();
      proc = null;
      // What was acknowledged is there, whole (a write of the typing in flight may have won the race).
      expect('kept\nacked inflight'.startsWith(await onDisk())).toBe(true);
      expect((await onDisk()).startsWith('kept\nacked ')).toBe(true);
      await a.page.locator('[data-testid="live-status"][data-state="reconnecting"]').waitFor();
      proc = await startServerProc(env, 'co-edit-kill-2');
      // The page reconnects and carries what was never acknowledged into the new session.
      await a.page.locator('[data-testid="live-status"][data-state="live"]').waitFor({ timeout: 20_000 });
      await until('on disk', async () => (await onDisk()) === 'kept\nacked inflight', 15_000);
      expect(await editorText(a.page)).toBe('kept\nacked inflight');
      expect(a.console.filter((l) => /violat/i.test(l)).join('\n')).toBe('');
    } finally {
      s = saved;
      await proc?.kill();
      await data.cleanup();
    }
  });
});
