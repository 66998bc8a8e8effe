import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium } from './browser.ts';
import { directProfile, linkWith } from './profile.ts';
import { axeAll, scrollsSideways, writeVault } from './shell-helpers.ts';

// Every view of the workspace, walked once per width and theme: axe finds nothing of any impact
// (minor included), and the page's policy refuses nothing (no `securitypolicyviolation`, no
// console line about the policy), the editor and a Mermaid diagram included.
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2"><path d="M3 6h18M3 12h12M3 18h6"/></svg>';
const WIDE_GRAPH = Array.from({ length: 9 }, (_, i) => `  N${i}[Step number ${i}] --> N${i + 1}`).join('\n');
const NOTE = `---
aliases: [Tour]
tags: [guide]
---
# Tour

A **bold** word, a [[Plain]] link, a #tag and math $e^{i\\pi} = -1$.

> [!note] A callout
> With a line.

- ![[lucide-arrow-up-narrow-wide.svg#icon]] **Sort**: by name.
- [ ] a task

\`\`\`mermaid
graph LR
${WIDE_GRAPH}
\`\`\`

\`\`\`mermaid
graph TD
  A --> ((
\`\`\`

Last line.
`;

let browser: Browser;
let s: LiveServer;
let vault: Awaited<ReturnType<typeof tempDir>>;
let serverId = '';

beforeAll(async () => {
  vault = await tempDir('quire-views-');
  await writeVault(vault.dir, {
    'Tour.md': NOTE,
    'Plain.md': '# Plain\n\nWords about the tour.\n',
    'Doomed.md': '# Doomed\n\nDeleted by the test.\n',
    'Attachments/lucide-arrow-up-narrow-wide.svg': ICON,
  });
  await ensureClientBuilt();
  [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir }),
  ]);
  serverId = (await s.setup()).serverId;
  // A version to compare (History) and an item in the trash (Trash).
  const key = { 'x-service-key': s.firstKey, 'content-type': 'application/json' };
  const put = await fetch(`${s.url}/api/v1/notes/Plain.md`, {
    method: 'PUT',
    headers: key,
    body: JSON.stringify({ content: '# Plain\n\nWords about the tour, edited.\n' }),
  });
  expect(put.status).toBe(200);
  const del = await fetch(`${s.url}/api/v1/notes/Doomed.md`, { method: 'DELETE', headers: key });
  expect(del.status).toBeLessThan(300);
  await mkdir(ARTIFACTS, { recursive: true });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
  await vault?.cleanup();
});

/** A linked page at `width` in `scheme`; every policy violation and page error is recorded. */
async function open(width: number, scheme: 'light' | 'dark') {
  const context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme });
  await linkWith(context, directProfile({ serverId, serverUrl: s.url, apiKey: s.firstKey, name: 'views' }));
  await context.addInitScript(() =>
    document.addEventListener(
      'securitypolicyviolation',
      (e) => console.error(`CSP ${e.violatedDirective} ${e.sourceFile}:${e.lineNumber} ${e.sample}`),
      true,
    ),
  );
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|inline style|^CSP /i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => void d.accept());
  return { page, problems, close: () => context.close() };
}

const go = (page: Page, hash: string) =>
  page.evaluate((h) => {
    location.hash = h;
  }, hash);

describe('every view, axe and the page policy (Chromium)', () => {
  for (const [width, scheme] of [
    [1280, 'light'],
    [390, 'dark'],
    [1280, 'dark'],
    [390, 'light'],
  ] as const) {
    it(`${width} px ${scheme}: home, note, editor, search, history, trash, chat`, async () => {
      const { page, problems, close } = await open(width, scheme);
      const findings: string[] = [];
      const check = async (view: string) => {
        for (const f of await axeAll(page)) findings.push(`${view}: ${f}`);
        if (await scrollsSideways(page)) findings.push(`${view}: the page scrolls sideways`);
        await page.screenshot({ path: join(ARTIFACTS, `views-${view}-${width}-${scheme}.png`) });
      };
      await page.goto(`${s.url}/workspace`);
      await page.getByTestId('home').waitFor();
      await check('home');

      await go(page, `#note=${encodeURIComponent('Tour.md')}`);
      const article = page.locator('article[data-path="Tour.md"]');
      await article.locator('figure.mermaid-diagram svg').waitFor();
      await article.locator('.katex').first().waitFor();
      // The inline icon sits on its item's line, before the bold word, not in a block above it.
      const icon = await article
        .locator('li img')
        .first()
        .evaluate((img) => {
          const li = img.closest('li')!;
          const strong = li.querySelector('strong')!;
          const [a, b] = [img.getBoundingClientRect(), strong.getBoundingClientRect()];
          return {
            display: getComputedStyle(img.closest('.embed') ?? img).display,
            sameLine: a.top < b.bottom && b.top < a.bottom,
          };
        });
      expect(icon.sameLine, `inline icon ${JSON.stringify(icon)}`).toBe(true);
      // A wide graph scrolls inside its own box; the page does not.
      const fig = await article.locator('figure.mermaid-diagram').evaluate((f) => ({
        box: f.getBoundingClientRect().width,
        view: document.documentElement.clientWidth,
        overflow: getComputedStyle(f).overflowX,
        scrolls: f.scrollWidth > f.clientWidth,
        svg: f.querySelector('svg')!.getBoundingClientRect().width,
      }));
      expect(fig.box).toBeLessThanOrEqual(fig.view);
      expect(fig.overflow).toBe('auto');
      // On the phone the graph keeps a readable width and scrolls inside its figure.
      expect(fig.svg, JSON.stringify(fig)).toBeGreaterThanOrEqual(500);
      if (width < 600) expect(fig.scrolls, JSON.stringify(fig)).toBe(true);
      // The drawing patched the DOM's prototypes for its duration only: all native again.
      const patched = await page.evaluate(
        () =>
          [
            Element.prototype.setAttribute,
            Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML')!.set!,
            Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML')!.get!,
            Node.prototype.appendChild,
            Node.prototype.insertBefore,
          ].filter((f) => !/\[native code\]/.test(Function.prototype.toString.call(f))).length,
      );
      expect(patched).toBe(0);
      // A diagram Mermaid cannot parse keeps its source with a note (and restores the prototypes).
      expect(await article.locator('.embed-missing').textContent()).toContain('could not be drawn');
      await check('note');

      await page.getByTestId('edit').click();
      await page.locator('[data-testid="editor"] .cm-content').waitFor();
      await page.locator('[data-testid="editor"] .cm-content').click();
      await page.keyboard.press('ControlOrMeta+End');
      await page.locator('[data-testid="editor"] .cm-lp-h1').waitFor();
      await check('editor');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await article.locator('[data-testid="note-body"]').waitFor();

      await page.getByTestId('search').fill('tour');
      await page.getByTestId('search').press('Enter');
      await page.locator('[data-testid="search-results"] a').first().waitFor();
      await check('search');

      await go(page, `#history=${encodeURIComponent('Plain.md')}`);
      await page.getByTestId('version').nth(1).waitFor();
      await page.getByTestId('version').last().getByTestId('version-diff').click();
      await page.getByTestId('history-diff').waitFor();
      // Authors by device or key name, never a raw key id.
      expect(await page.getByTestId('version').first().textContent()).toContain('by first key');
      await check('history');

      await go(page, '#trash');
      await page.getByTestId('trash-item').first().waitFor();
      expect(await page.getByTestId('trash').textContent()).toContain('by first key');
      expect(await page.getByTestId('trash').textContent()).not.toMatch(/key:|\bkey_[\w-]{6,}/);
      await check('trash');

      await go(page, `#note=${encodeURIComponent('Plain.md')}`);
      await page.locator('article[data-path="Plain.md"]').waitFor();
      if (width < 600) await page.getByTestId('chat-toggle').click();
      await page.getByTestId('chat-input').fill('what is the tour');
      await page.getByTestId('chat-send').click();
      await page.getByTestId('chat-reply').waitFor();
      await check('chat');

      expect(findings).toEqual([]);
      expect(problems).toEqual([]);
      await close();
    }, 180_000);
  }
});
