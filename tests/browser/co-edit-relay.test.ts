/**
 * Editing together through the relay in real Chromium: two relay nodes on one Redis, the server's
 * tunnel on one of them, one page on each (so every keystroke of the other page crosses Redis).
 * Both type at once and converge with the file on disk; a REST write enters both editors.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../client-link/src/flow/profiles.ts';
import type { RunningRelay } from '../../relay/node/server.ts';
import { type LiveServer, liveServer, restOn } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { e2eWorld } from '../relay/e2e-harness.ts';
import { ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';
import { editorText, openLiveEditor, typeAt } from './editor.ts';

const world = e2eWorld();
let browser: Browser;
let s: LiveServer;
let serverId = '';
let nodes: RunningRelay[] = [];
const contexts: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  await ensureClientBuilt();
  nodes = [await world.relay(), await world.relay()];
  [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'relay', RELAY_URL: nodes[1]!.url, LIVE_DEBOUNCE_MS: '300' }),
  ]);
  serverId = (await s.setup()).serverId;
}, 120_000);
afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await s?.stop();
  await world.cleanup();
});

/** Another client: REST calls with the first key. */
const rest = (method: string, path: string, body?: unknown) => restOn(s, method, path, body);

/** A workspace page whose profile reaches the server through `relay`, the note open live. */
async function relayedLivePage(relay: RunningRelay, name: string, path: string) {
  const via = `${relay.url}/r/${serverId}`;
  const profile: Profile = {
    id: `${serverId}@${name}`,
    serverId,
    serverUrl: via,
    apiKey: s.firstKey,
    mode: 'relay',
    relayUrl: relay.url,
    name,
    linkedAt: new Date().toISOString(),
  };
  const rec = await recordedPage(browser);
  contexts.push(rec.context);
  const calls: string[] = [];
  rec.page.on('request', (r) => {
    if (r.url().includes('/api/v1/')) calls.push(r.url());
  });
  await openLiveEditor(rec.context, rec.page, profile, s.url, path);
  return { ...rec, calls, via };
}

describe('editing together through the relay (Chromium, two relay nodes on one Redis)', () => {
  it('two pages on different relay nodes type at once and converge with the file on disk', async () => {
    expect(
      (await rest('POST', '/notes', { path: 'Team/relay.md', content: '# Plan\n\nmiddle\n' })).status,
    ).toBe(201);
    const a = await relayedLivePage(nodes[0]!, 'a', 'Team/relay.md');
    const b = await relayedLivePage(nodes[1]!, 'b', 'Team/relay.md');
    await until('a sees b', async () =>
      ((await a.page.getByTestId('live-people').textContent()) ?? '').startsWith('Also here:'),
    );

    await Promise.all([typeAt(a.page, 'start', 'from a. '), typeAt(b.page, 'end', 'from b.')]);
    const expected = 'from a. # Plan\n\nmiddle\nfrom b.';
    for (const p of [a.page, b.page])
      await until('converged', async () => (await editorText(p)) === expected, 15_000);
    await until(
      'on disk',
      async () => (await readFile(join(s.vaultDir, 'Team/relay.md'), 'utf8')) === expected,
      10_000,
    );
    // A REST write enters both editors as a change of their documents.
    const sum = (await rest('GET', '/notes/Team%2Frelay.md')).json.data.checksum;
    expect(
      (await rest('PUT', '/notes/Team%2Frelay.md', { content: `${expected}\nfrom rest`, base: sum })).status,
    ).toBe(200);
    for (const p of [a.page, b.page])
      await until('rest write in', async () => (await editorText(p)).endsWith('from rest'), 15_000);

    // Every call of both pages went through its relay node, none to the server's own address,
    // and the live session was carried as requests (no WebSocket was opened).
    for (const r of [a, b]) {
      expect(r.calls.filter((u) => !u.startsWith(`${r.via}/api/v1/`))).toEqual([]);
      expect(r.calls.some((u) => u.includes('/api/v1/live/sessions/'))).toBe(true);
      expect(r.console.filter((l) => /error|violat|websocket/i.test(l)).join('\n')).toBe('');
    }
    await a.page.locator('.cm-ySelectionInfo').first().waitFor({ state: 'attached' });
  });
});
