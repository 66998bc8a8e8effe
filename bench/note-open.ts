/**
 * A note opening in the workspace, as a person feels it: from the click on its name in the list
 * to its text painted, on loopback, measured by the browser's own clock (performance.now() in the
 * page: the click's event time, then the paint of the note's title as Element Timing reports it;
 * the body is mounted with it). A script, not a test: speed is never asserted.
 *
 *   npx tsx bench/note-open.ts [VAULT_DIR] [--notes 30]
 *
 * VAULT_DIR defaults to the Obsidian help vault of the search evaluation
 * (/tmp/quire-search-eval/obsidian-help, see bench/search-eval/run.ts); it is copied to a temp
 * folder first, so the server writes nothing into it. The first open (the renderer's code loads
 * then) is reported apart from the next ones.
 */
import { cp, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { PROFILES_KEY } from '../client-link/src/flow/profiles.ts';
import { ensureClientBuilt, launchChromium } from '../tests/browser/browser.ts';
import { tempDir } from '../tests/helpers/app.ts';
import { liveServer } from '../tests/helpers/live-server.ts';

const arg = (name: string) => process.argv[process.argv.indexOf(name) + 1];
const source = process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : undefined;
const vaultSource = source ?? '/tmp/quire-search-eval/obsidian-help';
const count = Number(arg('--notes')) || 30;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? NaN;

/**
 * In the page: the click's time (its event's timeStamp, the browser's clock), then the render time
 * of the note's title (Element Timing: the script marks each title as it joins the page), which is mounted with the
 * body in one go.
 */
const IN_PAGE = `new Promise((resolve) => {
  let clickedAt = 0;
  document.addEventListener('click', (e) => { clickedAt = e.timeStamp; }, { capture: true, once: true });
  new PerformanceObserver((list, obs) => {
    for (const e of list.getEntries()) {
      if (!clickedAt || e.identifier !== 'note-title' || e.element?.closest('article')?.dataset.path !== PATH) continue;
      obs.disconnect();
      const arrived = performance.getEntriesByName('quire:note-arrived').at(-1)?.startTime ?? 0;
      resolve({ ms: e.renderTime - clickedAt, arrivedMs: arrived - clickedAt });
    }
  }).observe({ type: 'element' });
})`;

async function notesOf(dir: string): Promise<string[]> {
  const all = (await readdir(dir, { recursive: true })) as string[];
  return all
    .filter((f) => f.endsWith('.md'))
    .map((f) => relative(dir, join(dir, f)).split('\\').join('/'))
    .sort();
}

async function main() {
  const tmp = await tempDir('quire-note-open-');
  await cp(vaultSource, tmp.dir, { recursive: true });
  const all = await notesOf(tmp.dir);
  const step = Math.max(1, Math.floor(all.length / count));
  const picked = all.filter((_, i) => i % step === 0).slice(0, count);
  await ensureClientBuilt();
  const [browser, s] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: tmp.dir, LOG_LEVEL: 'warn' }),
  ]);
  try {
    const { serverId } = await s.setup();
    const profile = {
      id: `${serverId}@direct`,
      serverId,
      serverUrl: s.url,
      apiKey: s.firstKey,
      mode: 'direct',
      relayUrl: null,
      name: 'bench',
      linkedAt: new Date().toISOString(),
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(
      ([k, v]) => localStorage.setItem(k!, v!),
      [PROFILES_KEY, JSON.stringify({ version: 1, active: profile.id, profiles: [profile] })],
    );
    // Each note's title is marked for Element Timing as it joins the page (before its first paint),
    // so the script measures any build of the client, an older one included.
    await context.addInitScript(
      `new MutationObserver(() => { for (const h of document.querySelectorAll('article[data-path] > h1:not([elementtiming])')) h.setAttribute('elementtiming', 'note-title'); }).observe(document, { childList: true, subtree: true });`,
    );
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${s.url}/workspace`);
    await page.locator('.note-list a').first().waitFor();
    // A person reads the list before clicking: the page's idle work (the renderer warmed, the
    // highlighter's chunk loaded) has run by then.
    await page.evaluate(
      'new Promise((r) => requestIdleCallback(() => requestIdleCallback(r, { timeout: 2000 })))',
    );
    const rows: { path: string; ms: number; arrivedMs: number }[] = [];
    for (const path of picked) {
      const link = page.locator(`.note-list a[href="#note=${encodeURIComponent(path)}"]`).first();
      if (!(await link.count())) continue;
      await link.scrollIntoViewIfNeeded();
      // (A string: tsx would wrap a function's inner functions in a helper the page lacks.)
      const timing = page.evaluate(IN_PAGE.replace('PATH', JSON.stringify(path))) as Promise<{
        ms: number;
        arrivedMs: number;
      }>;
      await link.click();
      const t = await timing;
      rows.push({ path, ...t });
    }
    const [first, ...rest] = rows;
    const ms = rest.map((r) => r.ms);
    console.log(
      `vault: ${vaultSource} (${all.length} notes), ${rows.length} opened, Chromium 1280x800, loopback`,
    );
    console.log(`first open (renderer loads): ${first?.ms.toFixed(1)} ms (${first?.path})`);
    console.log(
      `next ${ms.length}: median ${pct(ms, 0.5).toFixed(1)} ms, p90 ${pct(ms, 0.9).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; answer arrived at median ${pct(
        rest.map((r) => r.arrivedMs),
        0.5,
      ).toFixed(1)} ms`,
    );
    const slow = [...rest].sort((a, b) => b.ms - a.ms).slice(0, 3);
    for (const r of slow)
      console.log(`  slowest: ${r.ms.toFixed(1)} ms (answer at ${r.arrivedMs.toFixed(1)} ms) ${r.path}`);
    await context.close();
  } finally {
    await browser.close();
    await s.stop();
    await tmp.cleanup();
  }
}

await main();
