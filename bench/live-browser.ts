/**
 * Two browsers typing in one note, as the target reads: real Chromium pages with the
 * workspace's live editor (CodeMirror bound to the shared document), on loopback, directly and
 * through the relay (the server's embedded relay: live over requests). A script, not a test.
 *
 *   npx tsx bench/live-browser.ts [--keys 150] [--gap 50]
 *
 * Page A types `keys` short words at its end, `gap` ms apart (Playwright's insertText: one input
 * event each, as a word from a phone's keyboard). A keystroke's time is from A's `beforeinput`
 * event to the mutation of B's editor that shows the word, both on the machine's clock
 * (`performance.timeOrigin + performance.now()` in each page); B's paint follows within a frame.
 * The server runs in this process (tests/helpers/live-server.ts), like bench/note-open.ts.
 */
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { PROFILES_KEY, type Profile } from '../client-link/src/flow/profiles.ts';
import { ensureClientBuilt, launchChromium } from '../tests/browser/browser.ts';
import { liveServer } from '../tests/helpers/live-server.ts';

const { values } = parseArgs({
  options: { keys: { type: 'string', default: '150' }, gap: { type: 'string', default: '50' } },
});
const KEYS = Number(values.keys);
const GAP = Number(values.gap);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

/** A page whose one profile reaches the server at `serverUrl`, the note open in the live editor. */
async function livePage(browser: Browser, profile: Profile, origin: string, path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(
    ([k, v]) => localStorage.setItem(k!, v!),
    [PROFILES_KEY, JSON.stringify({ version: 1, active: profile.id, profiles: [profile] })],
  );
  const page = await context.newPage();
  await page.goto(`${origin}/workspace#note=${encodeURIComponent(path)}`);
  await page.getByTestId('live').click();
  await page.locator('[data-testid="live-editor"] .cm-content').waitFor();
  return page;
}

/** In the typing page: the machine-clock time of each word's `beforeinput`. */
const RECORD_SENT = `(() => {
  window.__sent = {};
  document.addEventListener('beforeinput', (e) => {
    const m = /w(\\d+)x/.exec(e.data ?? '');
    if (m) window.__sent[m[1]] = performance.timeOrigin + performance.now();
  }, { capture: true });
})()`;

/** In the watching page: the machine-clock time its editor first shows each word. */
const RECORD_SEEN = `(() => {
  window.__seen = {};
  // The editor lives in a shadow root (decision 0024): look inside the hosts under the form.
  const form = document.querySelector('[data-testid="live-editor"]');
  const content = [form, ...form.querySelectorAll('*')]
    .map((el) => el.querySelector('.cm-content') ?? el.shadowRoot?.querySelector('.cm-content'))
    .find(Boolean);
  let next = 0;
  new MutationObserver(() => {
    const text = content.textContent;
    while (text.includes('w' + next + 'x')) window.__seen[next++] = performance.timeOrigin + performance.now();
  }).observe(content, { subtree: true, childList: true, characterData: true });
})()`;

async function run(
  browser: Browser,
  name: string,
  make: (n: string) => Profile,
  origin: string,
  path: string,
) {
  const a = await livePage(browser, make('a'), origin, path);
  const b = await livePage(browser, make('b'), origin, path);
  await a.evaluate(RECORD_SENT);
  await b.evaluate(RECORD_SEEN);
  await a.locator('[data-testid="live-editor"] .cm-content').click();
  await a.keyboard.press('ControlOrMeta+End');
  for (let k = 0; k < KEYS; k++) {
    await a.keyboard.insertText(`w${k}x `);
    await new Promise((r) => setTimeout(r, GAP));
  }
  const deadline = Date.now() + 30_000;
  while (((await b.evaluate('Object.keys(window.__seen).length')) as number) < KEYS) {
    if (Date.now() > deadline) throw new Error(`${name}: not every word reached the other page`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const sent = (await a.evaluate('window.__sent')) as Record<string, number>;
  const seen = (await b.evaluate('window.__seen')) as Record<string, number>;
  const ms = Object.keys(sent).map((k) => seen[k]! - sent[k]!);
  console.log(
    `${name}, ${ms.length} words ${GAP} ms apart: p50 ${pct(ms, 0.5).toFixed(1)} ms, p95 ${pct(ms, 0.95).toFixed(1)} ms, p99 ${pct(ms, 0.99).toFixed(1)} ms`,
  );
  await a.context().close();
  await b.context().close();
  return pct(ms, 0.95);
}

async function main() {
  await ensureClientBuilt();
  const [browser, s] = await Promise.all([launchChromium(), liveServer({ PAIRING_MODE: 'relay' })]);
  try {
    const { serverId } = await s.setup();
    const note = async (path: string) =>
      fetch(`${s.url}/api/v1/notes`, {
        method: 'POST',
        headers: { 'x-service-key': s.firstKey, 'content-type': 'application/json' },
        body: JSON.stringify({ path, content: '# Typing\n\n' }),
      });
    await note('direct.md');
    await note('relayed.md');
    const profile =
      (mode: 'direct' | 'relay') =>
      (n: string): Profile => ({
        id: `${serverId}@${mode}-${n}`,
        serverId,
        serverUrl: mode === 'direct' ? s.url : `${s.relayUrl}/r/${serverId}`,
        apiKey: s.firstKey,
        mode,
        relayUrl: mode === 'direct' ? null : s.relayUrl,
        name: n,
        linkedAt: new Date().toISOString(),
      });
    const direct = await run(
      browser,
      'two Chromium pages, direct (WebSocket)',
      profile('direct'),
      s.url,
      'direct.md',
    );
    const relayed = await run(
      browser,
      'two Chromium pages, through the relay (requests)',
      profile('relay'),
      s.url,
      'relayed.md',
    );
    console.log(`p95 through the relay: ${(relayed / direct).toFixed(1)}x direct`);
  } finally {
    await browser.close();
    await s.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
