import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES_KEY } from '../../client-link/src/flow/profiles.ts';
import { tempDir } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { ARTIFACTS, ensureClientBuilt, launchChromium, recordedPage } from './browser.ts';
import { editorText } from './editor.ts';
import { axeSerious, scrollsSideways } from './shell-helpers.ts';

// Notes rendered as Obsidian users expect, and the CodeMirror editor.
const FIXTURE = fileURLToPath(new URL('../fixtures/render-vault', import.meta.url));
const TYPES = [
  'note',
  'abstract',
  'info',
  'todo',
  'tip',
  'success',
  'question',
  'warning',
  'failure',
  'danger',
  'bug',
  'example',
  'quote',
];
let browser: Browser;
let server: LiveServer;
let vault: Awaited<ReturnType<typeof tempDir>>;
// One linked page for the whole file (a connect link is used once).
let shared: Awaited<ReturnType<typeof linked>>;

beforeAll(async () => {
  vault = await tempDir('quire-render-');
  await cp(FIXTURE, vault.dir, { recursive: true });
  await ensureClientBuilt();
  [browser, server] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir }),
  ]);
  await mkdir(ARTIFACTS, { recursive: true });
  shared = await linked();
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await vault?.cleanup();
});

async function openNote(page: Page, path: string) {
  await page.evaluate((p) => {
    location.hash = `#note=${encodeURIComponent(p)}`;
  }, path);
  const body = page.locator(`article[data-path="${path}"] [data-testid="note-body"][data-rendered="true"]`);
  await body.waitFor({ timeout: 20_000 });
  return body;
}

async function linked() {
  const rec = await recordedPage(browser);
  const setup = await server.setup();
  await rec.page.goto(setup.links.connect.hostedClient);
  await rec.page.waitForURL(/\/workspace$/, { timeout: 15_000 });
  await rec.page.getByTestId('note-list').waitFor({ state: 'attached' });
  return rec;
}

/** The body's text outside code, math and diagrams: where no markdown marker may be left. */
const proseText = (page: Page) =>
  page.locator('article [data-testid="note-body"]').evaluate((el) => {
    const copy = el.cloneNode(true) as HTMLElement;
    for (const x of copy.querySelectorAll('pre, code, .katex, .mermaid-diagram')) x.remove();
    return copy.textContent ?? '';
  });

describe('note rendering as Obsidian users expect (Chromium, 1280 px unless named)', () => {
  it('renders every construct with no raw marker left, each heavy part loaded only when needed', async () => {
    const { page, requests } = shared;
    const chunk = (name: string) =>
      requests.some((r) => new RegExp(`/assets/${name}-[\\w-]+\\.js$`).test(r.url));

    // A plain note loads none of the heavy renderers.
    await openNote(page, 'Plain.md');
    for (const name of ['math', 'diagrams', 'highlight', 'codemirror']) expect(chunk(name)).toBe(false);

    const body = await openNote(page, 'Everything.md');
    // The heavy renderers (first load of their chunks) finish after the body is usable.
    await page.locator('article [data-testid="note-body"][data-rich="done"]').waitFor({ timeout: 60_000 });
    // Math: inline and display with KaTeX, `\,` intact.
    await body.locator('.math-display .katex-display').waitFor();
    expect(await body.locator('.math-inline .katex').count()).toBe(2);
    const thin = body.locator('.math-inline').nth(1);
    expect(await thin.getAttribute('data-tex')).toBe('a\\,b');
    expect(await thin.locator('annotation').textContent()).toBe('a\\,b');
    expect(await body.locator('.math-display annotation').textContent()).toContain('x\\,dx');
    // Mermaid: an SVG diagram; highlighted code.
    await body.locator('figure.mermaid-diagram svg').waitFor();
    expect(await body.locator('figure.mermaid-diagram svg').textContent()).toContain('Choose');
    expect(await body.locator('code[data-highlighted="js"] .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await body.locator('code[data-highlighted="python"] .hljs-keyword').count()).toBeGreaterThan(0);
    for (const name of ['math', 'diagrams', 'highlight']) expect(chunk(name)).toBe(true);
    // The PDF inline, in a frame on a blob URL, with its download link.
    const pdf = body.locator('iframe.embed-pdf-frame[data-embed="Attachments/report.pdf"]');
    await expect.poll(() => pdf.getAttribute('src')).toMatch(/^blob:/);
    expect(await body.locator('figure.embed-pdf a.embed-file').textContent()).toBe('Download report.pdf');

    // Callouts: a colour and an icon per type, whole titles with their inline markup.
    const colours = new Set<string>();
    const icons = new Set<string>();
    for (const type of TYPES) {
      const box = body.locator(`.callout[data-callout="${type}"]`).first();
      colours.add(await box.evaluate((e) => getComputedStyle(e).borderLeftColor));
      icons.add((await box.locator('.callout-icon').first().getAttribute('data-icon'))!);
    }
    expect(colours.size).toBe(TYPES.length);
    expect(icons.size).toBe(TYPES.length);
    const question = body.locator('details.callout[data-callout="question"]').first();
    expect(await question.locator('.callout-title').textContent()).toBe(
      "Why don't multiple Enter presses make more space?",
    );
    expect(await question.locator('.callout-title code').textContent()).toBe('Enter');
    expect(await question.locator('.callout-title strong').textContent()).toBe('more');
    expect(await question.getAttribute('open')).toBe('');
    expect(await body.locator('details.callout[data-callout="failure"]').getAttribute('open')).toBeNull();
    expect(await body.locator('.callout[data-callout="note"] .callout-title').first().textContent()).toBe(
      'Note',
    );
    expect(await body.locator('.callout .callout .callout-title').textContent()).toBe('Inner callout');
    // A wiki-link and an embed inside code inside a callout: shown as typed.
    expect(await body.locator('.callout[data-callout="example"] pre code').textContent()).toBe(
      'A wiki-link [[Linker]] and an embed ![[chart.png]] stay as typed here.\n',
    );
    expect(await body.locator('pre code', { hasText: 'indented code block' }).textContent()).toContain(
      '[[Not a link]]',
    );

    // No raw marker of any construct left in the prose.
    const prose = await proseText(page);
    for (const marker of [
      '[[',
      ']]',
      '==',
      '%%',
      '$$',
      '[!',
      '^[',
      '**',
      '~~',
      '```',
      '^key-point',
      'hiddentag',
    ]) {
      expect(prose, marker).not.toContain(marker);
    }
    expect(prose).toContain('Written right in the sentence.');
    expect(await body.locator('section[data-footnotes] li').count()).toBe(2);

    // Properties from the frontmatter.
    const props = page.getByTestId('properties');
    expect(await props.locator('dt').allTextContents()).toEqual([
      'tags',
      'aliases',
      'status',
      'reviewed',
      'rating',
      'related',
    ]);
    expect(await props.locator('dd[data-key="status"]').textContent()).toBe('draft');
    expect(await props.locator('dd[data-key="reviewed"] input').isChecked()).toBe(true);
    expect(await props.locator('dd[data-key="related"] a').getAttribute('href')).toBe('#note=Linker.md');
    expect(await props.locator('dd[data-key="tags"] a.tag').allTextContents()).toEqual([
      '#fixture',
      '#render/all',
    ]);

    // Backlinks with the sentence that links.
    const context1 = page.locator(
      '[data-testid="backlinks"] li[data-path="Linker.md"] [data-testid="backlink-context"]',
    );
    await expect
      .poll(() => context1.allTextContents())
      .toEqual([
        'The best summary of the formats is in Everything, which shows each one.',
        'Another line mentions the sink again. #project/alpha',
      ]);
    await page.screenshot({
      path: join(ARTIFACTS, 'render-everything-light.png'),
      fullPage: true,
      timeout: 30_000,
    });
    expect(await axeSerious(page)).toEqual([]);

    // An inline nested tag lists the notes carrying it (nested under it too).
    await body.locator('a[href="#tag=project%2Falpha%2Fbeta"]').first().click();
    const results = page.getByTestId('tag-results');
    await results.locator('li').first().waitFor();
    expect(
      await results.locator('a[data-path]').evaluateAll((as) => as.map((a) => a.getAttribute('data-path'))),
    ).toEqual(['Everything.md', 'Tagged.md']);
    await page.screenshot({ path: join(ARTIFACTS, 'render-tag-results.png') });
    await results.getByTestId('tag-back').click();
    // A tag pill (a parent tag) lists nested tags' notes too.
    await openNote(page, 'Linker.md');
    await page.locator('[data-testid="tags"] a.tag[data-tag="project/alpha"]').click();
    await expect
      .poll(() =>
        results.locator('a[data-path]').evaluateAll((as) => as.map((a) => a.getAttribute('data-path'))),
      )
      .toEqual(['Everything.md', 'Linker.md', 'Tagged.md']);
  }, 240_000);

  it('the editor is CodeMirror: `[[` completion inserts a link that resolves once saved', async () => {
    const { page, console: lines } = shared;
    await openNote(page, 'Plain.md');
    await page.getByTestId('edit').click();
    const editor = page.locator('[data-testid="editor"][data-editor="codemirror"]');
    await editor.locator('.cm-content').waitFor();
    expect(await editor.locator('.cm-content').getAttribute('aria-label')).toBe('Text of Plain.md');
    await editor.locator('.cm-content').click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('\nSee [[Lin');
    // The options are taken with a click: CodeMirror ignores Enter for its first 75 ms after a
    // list opens (interactionDelay), a time no test should race.
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'Linker' }).first().click();
    await expect.poll(() => editorText(page)).toMatch(/See \[\[Linker\]\]$/);
    await page.keyboard.type(' and [[Linker#Con');
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'Context' }).first().click();
    await expect.poll(() => editorText(page)).toMatch(/See \[\[Linker\]\] and \[\[Linker#Context\]\]$/);
    // An alias from another note's frontmatter offers that note; taking it links to the note, the alias shown.
    await page.keyboard.type(' or [[Kitch');
    await page.locator('.cm-tooltip-autocomplete li', { hasText: 'Kitchen sink' }).first().click();
    await expect
      .poll(() => editorText(page))
      .toMatch(/\[\[Linker#Context\]\] or \[\[Everything\|Kitchen sink\]\]$/);
    // Markdown highlighting: the heading line is styled by the markdown language.
    expect(
      await editor
        .locator('.cm-line')
        .first()
        .evaluate((l) => l.innerHTML),
    ).toMatch(/<span class="[^"]+">/);
    await page.screenshot({ path: join(ARTIFACTS, 'render-editor-completion.png') });
    await page.getByTestId('save').click();
    await until(
      'the condition',
      async () =>
        (await readFile(join(vault.dir, 'Plain.md'), 'utf8')).includes('[[Everything|Kitchen sink]]'),
      10_000,
    );
    const body = page.locator(
      'article[data-path="Plain.md"] [data-testid="note-body"][data-rendered="true"]',
    );
    // The saved note is rendered again when the change feed reports the write: poll, not one look.
    await expect.poll(() => body.locator('a[href="#note=Linker.md"]').count(), { timeout: 10_000 }).toBe(2);
    await expect
      .poll(() => body.locator('a[href="#note=Everything.md"]').allTextContents(), { timeout: 10_000 })
      .toEqual(['Kitchen sink']);
    expect(lines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  }, 60_000);

  it('the textarea is the fallback only when the editor chunk fails to load; saving still works', async () => {
    const profiles = await shared.page.evaluate((k) => localStorage.getItem(k), PROFILES_KEY);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(
      ([k, v]) => {
        if (window === window.top) localStorage.setItem(k!, v!);
      },
      [PROFILES_KEY, profiles!],
    );
    // The CodeMirror chunk cannot be had (a broken cache, a blocked request).
    await context.route(/\/assets\/codemirror-[\w-]+\.js$/, (r) => r.abort());
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    await page.goto(`${server.url}/workspace`);
    await openNote(page, 'Tagged.md');
    await page.getByTestId('edit').click();
    const host = page.locator('[data-testid="editor"][data-editor="textarea"]');
    await host.locator('textarea').waitFor();
    expect(await host.locator('textarea').getAttribute('aria-label')).toBe('Text of Tagged.md');
    const before = await editorText(page);
    await host.locator('textarea').fill(`${before}\nAdded in the fallback.\n`);
    await page.getByTestId('save').click();
    await until(
      'the condition',
      async () => (await readFile(join(vault.dir, 'Tagged.md'), 'utf8')).includes('Added in the fallback.'),
      10_000,
    );
    await context.close();
  }, 60_000);

  for (const scheme of ['light', 'dark'] as const) {
    it(`390 px, ${scheme}: the note with every construct fits a phone (no sideways scroll at 360) and is axe clean`, async () => {
      // The profile the shared page linked, in a fresh phone-sized context.
      const profiles = await shared.page.evaluate((k) => localStorage.getItem(k), PROFILES_KEY);
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        colorScheme: scheme,
      });
      // The top page only: the PDF's sandboxed frame has no storage.
      await context.addInitScript(
        ([k, v]) => {
          if (window === window.top) localStorage.setItem(k!, v!);
        },
        [PROFILES_KEY, profiles!],
      );
      const page = await context.newPage();
      page.setDefaultTimeout(8_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${server.url}/workspace`);
      const body = await openNote(page, 'Everything.md');
      await page.locator('article [data-testid="note-body"][data-rich="done"]').waitFor({ timeout: 60_000 });
      await body.locator('figure.mermaid-diagram svg').waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
      expect(await scrollsSideways(page)).toBe(false);
      // Nothing in the note column is cut off sideways without its own scroll bar.
      const overflowing = await body.evaluate((el) => {
        const right = el.getBoundingClientRect().right + 1;
        const out: string[] = [];
        for (const c of el.querySelectorAll<HTMLElement>(
          'p, li, h1, h2, h3, h4, h5, h6, figure, table, pre, .callout, .math-display, iframe, img',
        )) {
          const box = c.getBoundingClientRect();
          if (box.width === 0) continue;
          let clipped = box.right > right;
          for (let a = c.parentElement; clipped && a && a !== el; a = a.parentElement) {
            const o = getComputedStyle(a).overflowX;
            if (o === 'auto' || o === 'scroll') clipped = false;
          }
          if (clipped) out.push(`${c.tagName.toLowerCase()}.${c.className}`);
        }
        return out;
      });
      expect(overflowing).toEqual([]);
      await page.screenshot({
        path: join(ARTIFACTS, `render-everything-390-${scheme}.png`),
        fullPage: true,
        timeout: 30_000,
      });
      await page.setViewportSize({ width: 360, height: 740 });
      expect(await scrollsSideways(page)).toBe(false);
      expect(await axeSerious(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
  }

  it('dark: callouts, math and diagrams render with the dark colours', async () => {
    const { page, context } = shared;
    await page.emulateMedia({ colorScheme: 'dark' });
    const body = await openNote(page, 'Everything.md');
    await page.locator('article [data-testid="note-body"][data-rich="done"]').waitFor({ timeout: 60_000 });
    await body.locator('figure.mermaid-diagram svg').waitFor();
    await body.locator('.math-display .katex-display').waitFor();
    const bg = await body
      .locator('.callout[data-callout="tip"]')
      .first()
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    // The callout's tint is mixed into the page's own background (dark under dark mode when the shell sets it).
    expect(bg).not.toBe('rgba(0, 0, 0, 0)');
    await page.screenshot({
      path: join(ARTIFACTS, 'render-everything-dark.png'),
      fullPage: true,
      timeout: 30_000,
    });
    expect(await axeSerious(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
