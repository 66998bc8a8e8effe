/**
 * `npx tsx bench/note-open.ts`: how long the workspace takes to show a note after the server's
 * answer arrives (issue 27: under 50 ms), in Chromium against the real server, for a plain note
 * (the baseline of the same run) and the render fixture with every construct (tests/fixtures/render-vault).
 * Two figures per note: the body in place (the markdown rendered and mounted) and everything
 * finished (math, diagram, highlighting, embeds). Env: BENCH_OPEN_ROUNDS (default 15).
 */
import { cp } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ensureClientBuilt, launchChromium } from '../tests/browser/browser.ts';
import { tempDir } from '../tests/helpers/app.ts';
import { liveServer } from '../tests/helpers/live-server.ts';

const ROUNDS = Number(process.env.BENCH_OPEN_ROUNDS ?? 15);
const FIXTURE = fileURLToPath(new URL('../tests/fixtures/render-vault', import.meta.url));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const vault = await tempDir('quire-bench-open-');
await cp(FIXTURE, vault.dir, { recursive: true });
await ensureClientBuilt();
const [browser, server] = await Promise.all([
  launchChromium(),
  liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: vault.dir }),
]);
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto((await server.setup()).links.connect.hostedClient);
  await page.waitForURL(/\/workspace$/, { timeout: 15_000 });
  await page.getByTestId('note-list').waitFor({ state: 'attached' });
  // A string, not a function: tsx wraps named functions in a helper (`__name`) the page does not have.
  // The note's own read is the first one after the timings were cleared (its embeds of itself come later).
  const open = (path: string) =>
    page.evaluate(`(async (p) => {
      performance.clearResourceTimings();
      const panel = document.querySelector('[data-testid="note-panel"]');
      const result = new Promise((resolve) => {
        let mounted = 0;
        const obs = new MutationObserver(() => {
          const body = panel.querySelector('article[data-path="' + p + '"] [data-testid="note-body"]');
          if (body && !mounted) mounted = performance.now();
          if (body && body.getAttribute('data-rendered') === 'true') {
            obs.disconnect();
            const read = performance
              .getEntriesByType('resource')
              .filter((e) => e.name.includes('/api/v1/notes/' + encodeURIComponent(p)))[0];
            resolve({ mounted, done: performance.now(), answer: read.responseEnd });
          }
        });
        obs.observe(panel, { subtree: true, childList: true, attributes: true });
      });
      location.hash = '#note=' + encodeURIComponent(p);
      return result;
    })(${JSON.stringify(path)})`) as Promise<{ mounted: number; done: number; answer: number }>;
  const figures: Record<string, { mounted: number[]; done: number[] }> = {
    'Plain.md': { mounted: [], done: [] },
    'Everything.md': { mounted: [], done: [] },
  };
  // The first opening of Everything.md loads the lazy chunks; measure it apart.
  await open('Plain.md');
  const first = await open('Everything.md');
  for (let i = 0; i < ROUNDS; i++) {
    for (const p of ['Plain.md', 'Everything.md']) {
      await open('Linker.md');
      const r = await open(p);
      const f = figures[p]!;
      f.mounted.push(r.mounted - r.answer);
      f.done.push(r.done - r.answer);
    }
  }
  const plain = figures['Plain.md']!;
  const all = figures['Everything.md']!;
  const fmt = (n: number) => `${n.toFixed(1)} ms`;
  console.log(
    `load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; ${ROUNDS} rounds; medians after the answer arrived`,
  );
  console.log(`| Note | body in place | everything rendered |\n| --- | ---: | ---: |`);
  console.log(`| Plain.md (baseline) | ${fmt(median(plain.mounted))} | ${fmt(median(plain.done))} |`);
  console.log(
    `| Everything.md (every construct) | ${fmt(median(all.mounted))} (${(median(all.mounted) / median(plain.mounted)).toFixed(1)}x) | ${fmt(median(all.done))} (${(median(all.done) / median(plain.done)).toFixed(1)}x) |`,
  );
  console.log(
    `| Everything.md, first opening (lazy chunks loaded) | ${fmt(first.mounted - first.answer)} | ${fmt(first.done - first.answer)} |`,
  );
} finally {
  await browser.close();
  await server.stop();
  await vault.cleanup();
}
