import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium } from './browser.ts';
import { editorText } from './editor.ts';
import { directProfile, linkWith } from './profile.ts';
import { axeSerious, scrollsSideways, writeVault } from './shell-helpers.ts';

// The workspace's editor and the views around it: no inline style refused by the page's policy
// (CodeMirror, Mermaid), live preview, paste of an image, history compared like with like.
const FM = '---\naliases: [Flow]\npermalink: flow\n---\n';
const DIAGRAM = `${FM}# Flow

A **bold** word, a [[Plain]] link and a #tag.

- [ ] a task

\`\`\`mermaid
graph TD
  A[Start] --> B{Choose}
  B --> C[Left]
  B --> D[Right]
\`\`\`

Last line.
`;
let browser: Browser;
let s: LiveServer;
let vault: Awaited<ReturnType<typeof tempDir>>;
let serverId = '';

beforeAll(async () => {
  vault = await tempDir('quire-editor-ui-');
  await writeVault(vault.dir, {
    'Flow.md': DIAGRAM,
    'Plain.md': '# Plain\n\nWords.\n',
    'notes/Inbox.md': '# Inbox\n',
  });
  await ensureClientBuilt();
  [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir }),
  ]);
  serverId = (await s.setup()).serverId;
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await s?.stop();
  await vault?.cleanup();
});

/** A page at `width` in `scheme`, linked or not; every CSP violation and page error is recorded. */
async function open(width: number, scheme: 'light' | 'dark', linked = true) {
  const context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme });
  if (linked)
    await linkWith(
      context,
      directProfile({ serverId, serverUrl: s.url, apiKey: s.firstKey, name: 'editor' }),
    );
  // Where a refused inline style came from (the console says only that one was refused).
  await context.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(
        `CSP ${e.violatedDirective} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${(e.target as Element)?.nodeName} ${String((e.target as Element)?.outerHTML ?? '').slice(0, 160)}`,
      ),
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

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `editor-${name}.png`) });

async function openNote(page: Page, path: string) {
  await page.evaluate((p) => {
    location.hash = `#note=${encodeURIComponent(p)}`;
  }, path);
  await page.locator(`article[data-path="${path}"] [data-testid="note-body"]`).waitFor();
}

describe('the editor and the views around it (Chromium)', () => {
  for (const [width, scheme] of [
    [1280, 'light'],
    [390, 'dark'],
    [1280, 'dark'],
    [390, 'light'],
  ] as const) {
    it(`${width} px ${scheme}: root, home, a Mermaid note, the editor: no CSP violation, axe clean`, async () => {
      const anon = await open(width, scheme, false);
      await anon.page.goto(s.url);
      await anon.page.getByTestId('link-welcome').waitFor();
      expect(await anon.page.getByTestId('link-error').isHidden()).toBe(true);
      expect(await axeSerious(anon.page)).toEqual([]);
      await shot(anon.page, `root-${width}-${scheme}`);
      expect(anon.problems).toEqual([]);
      await anon.close();

      const { page, problems, close } = await open(width, scheme);
      await page.goto(`${s.url}/workspace`);
      await page.getByTestId('home').waitFor();
      expect(await page.getByTestId('home').locator('h1').textContent()).toBe('Home');
      expect(await axeSerious(page)).toEqual([]);

      await openNote(page, 'Flow.md');
      await page.locator('figure.mermaid-diagram svg').waitFor();
      expect(await page.locator('figure.mermaid-diagram svg').textContent()).toContain('Choose');
      expect(await scrollsSideways(page)).toBe(false);
      expect(await axeSerious(page)).toEqual([]);
      await shot(page, `mermaid-${width}-${scheme}`);

      await page.getByTestId('edit').click();
      const content = page.locator('[data-testid="editor"] .cm-content');
      await content.waitFor();
      // Styled by CodeMirror's own sheets (constructed, in the editor's shadow root).
      expect(await content.evaluate((e) => getComputedStyle(e).whiteSpace)).toBe('break-spaces');
      // Live preview: away from the cursor the heading reads without its `#`.
      await content.click();
      await page.keyboard.press('ControlOrMeta+End');
      const h1 = page.locator('[data-testid="editor"] .cm-line.cm-lp-h1');
      expect(await h1.textContent()).toBe('Flow');
      expect(await page.locator('[data-testid="editor"] .cm-lp-wikilink').first().textContent()).toBe(
        'Plain',
      );
      expect(await page.locator('[data-testid="editor"] input.cm-lp-task').count()).toBe(1);
      expect(await axeSerious(page)).toEqual([]);
      await shot(page, `edit-${width}-${scheme}`);
      // On the cursor's line, the source.
      await page.keyboard.press('ControlOrMeta+Home');
      expect(await h1.textContent()).toBe('# Flow');
      expect(await scrollsSideways(page)).toBe(false);
      expect(problems).toEqual([]);
      await close();
    }, 120_000);
  }

  it('1280 px: paste an image, save with Ctrl+S; History compares whole files and names the key', async () => {
    const { page, problems, close } = await open(1280, 'light');
    await page.goto(`${s.url}/workspace`);
    await openNote(page, 'Flow.md');
    await page.getByTestId('edit').click();
    const content = page.locator('[data-testid="editor"] .cm-content');
    await content.click();
    await page.keyboard.press('ControlOrMeta+End');
    // A pasted image (the clipboard event a phone's paste sends too): uploaded, embedded.
    await content.evaluate((el) => {
      const png = Uint8Array.from(
        atob(
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==',
        ),
        (c) => c.charCodeAt(0),
      );
      const data = new DataTransfer();
      data.items.add(new File([png], 'image.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => editorText(page)).toMatch(/!\[\[Pasted image \d{14}\.png\]\]/);
    expect(problems, 'after paste').toEqual([]);
    const name = /Pasted image \d{14}\.png/.exec(await editorText(page))![0];
    expect((await readdir(vault.dir, { recursive: true })).some((f) => f.endsWith(name))).toBe(true);

    // A line typed at the end, saved with the shortcut through the form's save. (Typed at a
    // cursor: replacing a selection across differently styled lines makes Chromium's own editing
    // try an inline style, which the policy refuses; CodeMirror redraws the text either way.)
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.insertText('\nLast line, edited.');
    await page.keyboard.press('ControlOrMeta+s');
    await until(
      'the edit on disk',
      async () => (await readFile(join(vault.dir, 'Flow.md'), 'utf8')).includes('Last line, edited.'),
      15_000,
    );
    expect(await readFile(join(vault.dir, 'Flow.md'), 'utf8')).toMatch(/^---\naliases: \[Flow\]/);

    await page.locator('article[data-path="Flow.md"] figure.mermaid-diagram svg').waitFor();
    expect(problems, 'after save').toEqual([]);
    await page.locator('article[data-path="Flow.md"] [data-testid="history-open"]').click();
    await page.getByTestId('version').nth(1).waitFor();
    expect(await page.getByTestId('version').first().textContent()).toContain('edited by first key');
    await page.getByTestId('version').last().getByTestId('version-diff').click();
    const diff = page.getByTestId('history-diff');
    await diff.waitFor();
    expect(await page.getByTestId('diff-scope').textContent()).toContain('included on both sides');
    const changed = [
      ...(await diff.locator('.d-del').allTextContents()),
      ...(await diff.locator('.d-add').allTextContents()),
    ];
    expect(changed.some((l) => /aliases|permalink/.test(l))).toBe(false);
    expect(changed).toContain('-Last line, edited.');
    expect(problems).toEqual([]);
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'editor-history-1280-light.png'), fullPage: true });
    expect(problems).toEqual([]);
    await close();
  }, 120_000);

  it('New note asks a title and a folder (completed), then opens the editor', async () => {
    const { page, problems, close } = await open(1280, 'light');
    await page.goto(`${s.url}/workspace`);
    await page.getByTestId('home').waitFor();
    await page.getByTestId('new-note').click();
    await page.getByLabel('Title', { exact: true }).fill('Fresh idea');
    await expect
      .poll(() =>
        page.locator('#new-folders option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)),
      )
      .toContain('notes');
    await page.getByLabel('Folder (optional)').fill('notes');
    expect(await axeSerious(page)).toEqual([]);
    await page.getByTestId('create').click();
    await page.locator('[data-testid="editor"] .cm-content').waitFor();
    expect(await editorText(page)).toBe('# Fresh idea\n\n');
    expect(await readFile(join(vault.dir, 'notes', 'Fresh idea.md'), 'utf8')).toBe('# Fresh idea\n\n');
    expect(problems).toEqual([]);
    await close();
  }, 60_000);
});
