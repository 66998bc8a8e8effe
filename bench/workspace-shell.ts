/**
 * The workspace in Chromium: the initial JavaScript of /workspace (gzip -9 of the
 * scripts and styles index.html loads; lazy chunks listed apart), the tree's first paint after
 * the list arrives and a note's showing after its answer arrives, on a 100-note vault (the
 * baseline of the same run) and a 10,000-note one: the real server's answers (the list as the
 * workspace asks it), read once and replayed.
 *
 *   npx tsx bench/workspace-shell.ts [--rounds 5]
 *
 * The page marks `quire:list-arrived`, `quire:tree-rendered`, `quire:tree-painted` (the frame
 * after the tree was built), `quire:note-arrived` and `quire:note-shown` (client-link/src/ui/workspace.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { PROFILES_KEY } from '../client-link/src/flow/profiles.ts';
import { launchChromium } from '../tests/browser/browser.ts';
import { liveServer } from '../tests/helpers/live-server.ts';
import { ensureVault } from './generate-vault.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'client-link/dist');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).length;
/** The size of the list answer the workspace reads, by vault size. */
const listBytes = new Map<number, number>();

async function bundle() {
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'client-link/vite.config.ts'), logLevel: 'warn', mode: 'production' });
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const rows = initial.map((f) => ({ file: f, raw: statSync(join(DIST, f)).size, gzip: gz(join(DIST, f)) }));
  const lazy = readdirSync(join(DIST, 'assets'))
    .map((f) => `assets/${f}`)
    .filter((f) => !initial.includes(f) && /\.(js|css)$/.test(f))
    .map((f) => ({ file: f, raw: statSync(join(DIST, f)).size, gzip: gz(join(DIST, f)) }));
  return {
    initial: rows,
    initialJsGzip: rows.filter((r) => r.file.endsWith('.js')).reduce((a, r) => a + r.gzip, 0),
    lazy,
  };
}

async function paint(notes: number, browser: Awaited<ReturnType<typeof launchChromium>>) {
  const { dir } = await ensureVault(join(ROOT, '.bench-vaults'), notes);
  const s = await liveServer({ PAIRING_MODE: 'open-port', VAULT_DIR: dir, LOG_LEVEL: 'warn' });
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
  // The three list answers, read once from the real server and replayed to each page, so the
  // figures are the page's own work after the answers arrive, not the server's time under load
  // (the 10,000-note list is 17.8 MB, and on a loaded machine it can outlast the client's 15 s).
  const answers = new Map<string, string>();
  // The list as the workspace asks it (path, title, tags, aliases; client-link/src/flow/workspace-api.ts).
  const asked: Record<string, string> = {
    '/api/v1/notes': '/api/v1/notes?fields=path,title,tags,aliases',
    '/api/v1/folders/tree': '/api/v1/folders/tree',
    '/api/v1/tags': '/api/v1/tags',
  };
  for (const [path, url] of Object.entries(asked)) {
    const res = await fetch(`${s.url}${url}`, { headers: { 'x-service-key': s.firstKey } });
    answers.set(path, await res.text());
  }
  listBytes.set(notes, answers.get('/api/v1/notes')!.length);
  const tree: number[] = [];
  const built: number[] = [];
  const nodes: number[] = [];
  const open: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        serviceWorkers: 'block',
      });
      await context.addInitScript(
        ([k, v]) => localStorage.setItem(k!, v!),
        [PROFILES_KEY, JSON.stringify({ version: 1, active: profile.id, profiles: [profile] })],
      );
      await context.route(
        (u) => answers.has(u.pathname),
        (route) =>
          route.fulfill({
            status: 200,
            contentType: 'application/json',
            body: answers.get(new URL(route.request().url()).pathname)!,
          }),
      );
      const page = await context.newPage();
      await page.goto(`${s.url}/workspace`);
      await page.waitForFunction(
        () => performance.getEntriesByName('quire:tree-painted').length > 0,
        undefined,
        {
          timeout: 300_000,
        },
      );
      // Strings, not functions: tsx would wrap named functions in a helper the page does not have.
      const t = (await page.evaluate(`(() => {
        const at = (n) => performance.getEntriesByName(n)[0].startTime;
        return {
          painted: at('quire:tree-painted') - at('quire:list-arrived'),
          built: at('quire:tree-rendered') - at('quire:list-arrived'),
          nodes: document.querySelectorAll('.workspace *').length,
          first: document.querySelector('[data-testid="note-list"] a').dataset.path,
        };
      })()`)) as { painted: number; built: number; nodes: number; first: string };
      tree.push(t.painted);
      built.push(t.built);
      nodes.push(t.nodes);
      await page.evaluate((p) => {
        performance.clearMarks('quire:note-shown');
        location.hash = `#note=${encodeURIComponent(p)}`;
      }, t.first);
      await page.waitForFunction(
        () => performance.getEntriesByName('quire:note-shown').length > 0,
        undefined,
        {
          timeout: 120_000,
        },
      );
      open.push(
        (await page.evaluate(`(() => {
          const last = (n) => performance.getEntriesByName(n).at(-1).startTime;
          return last('quire:note-shown') - last('quire:note-arrived');
        })()`)) as number,
      );
      await context.close();
    }
  } finally {
    await s.stop();
  }
  return {
    notes,
    treePaintMs: median(tree),
    treeBuildMs: median(built),
    domNodes: median(nodes),
    noteShowMs: median(open),
  };
}

const b = await bundle();
const browser = await launchChromium();
try {
  const small = await paint(100, browser);
  const large = await paint(10_000, browser);
  const fmt = (x: number) => x.toFixed(1);
  console.log(JSON.stringify({ bundle: b, small, large }, null, 2));
  console.log(
    `\ninitial JS for /workspace, gzip -9: ${(b.initialJsGzip / 1024).toFixed(1)} kB (target < 120 kB)`,
  );
  for (const r of b.initial) console.log(`  initial ${r.file}: ${r.raw} B raw, ${r.gzip} B gzip`);
  for (const r of b.lazy) console.log(`  lazy    ${r.file}: ${r.raw} B raw, ${r.gzip} B gzip`);
  console.log('| vault | tree built (ms) | tree painted (ms) | DOM nodes | note shown (ms) |');
  for (const r of [small, large])
    console.log(
      `| ${r.notes} | ${fmt(r.treeBuildMs)} | ${fmt(r.treePaintMs)} | ${r.domNodes} | ${fmt(r.noteShowMs)} |`,
    );
  console.log(
    `list answer (fields=path,title,tags,aliases): ${[...listBytes].map(([n, b]) => `${n} notes ${(b / 1024).toFixed(0)} KiB`).join(', ')}`,
  );
  console.log(
    `ratios 10,000 / 100: tree painted ${fmt(large.treePaintMs / small.treePaintMs)}x, DOM nodes ${fmt(large.domNodes / small.domNodes)}x, note shown ${fmt(large.noteShowMs / small.noteShowMs)}x (rounds: ${rounds})`,
  );
} finally {
  await browser.close();
}
