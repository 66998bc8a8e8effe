/**
 * Candidates for the index parse, measured in one run on the benchmark generator's notes (in memory,
 * no disk): remark (today's analyzeMarkdown), markdown-it's tokenizer, @lezer/markdown, md4w (md4c in
 * WASM), marked's lexer, and our one-pass reader (analyzeMarkdownFast, the full index answer).
 *
 *   npx tsx bench/parsers.ts [--notes 10000] [--seed 42] [--runs 3] [--remark-notes 2000]
 *
 * Prints a markdown table: median CPU seconds of this process (user + system, so that other load
 * on the machine counts less than in wall time), MB/s (UTF-8 bytes), mean per-note time, ratio to
 * remark. remark runs on the first --remark-notes notes (it is much slower); its MB/s is on that
 * sample. Our code (both analyzers) is bundled with esbuild first, as compiled JavaScript runs in
 * production: tsx's transform wraps every closure (keepNames), which would slow it unfairly.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parser as lezer } from '@lezer/markdown';
import { build } from 'esbuild';
import MarkdownIt from 'markdown-it';
import { marked } from 'marked';
import { init as initMd4w, mdToJSON } from 'md4w';
import type { MarkdownAnalysis } from '../core/notes/markdown/types.ts';
import { renderNote } from './vault-note.ts';
import { planVault } from './vault-plan.ts';

const { values } = parseArgs({
  options: {
    notes: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '42' },
    runs: { type: 'string', default: '3' },
    'remark-notes': { type: 'string', default: '2000' },
  },
});
const count = Number(values.notes);
const seed = Number(values.seed);
const runs = Number(values.runs);
const plan = planVault(count, seed);
const notes = plan.notes.map((_, i) => renderNote(plan, i, seed));
const bytesOf = (list: string[]) => list.reduce((n, s) => n + Buffer.byteLength(s), 0);

const repo = fileURLToPath(new URL('..', import.meta.url));
const entry = join(repo, '.bench-vaults', 'parsers-entry.ts');
const outfile = join(repo, '.bench-vaults', 'parsers-build.mjs');
mkdirSync(dirname(entry), { recursive: true });
writeFileSync(
  entry,
  [
    "export { analyzeMarkdown } from '../core/notes/markdown/remark.ts';",
    "export { FRONTMATTER, parseFrontmatter } from '../core/notes/markdown/parts.ts';",
    "export { analyzeMarkdownFast } from '../core/notes/markdown/scan.ts';",
  ].join('\n'),
);
await build({
  entryPoints: [entry],
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  outfile,
  logLevel: 'error',
});
const ours = (await import(pathToFileURL(outfile).href)) as {
  analyzeMarkdown: (raw: string) => MarkdownAnalysis;
  analyzeMarkdownFast: (raw: string) => MarkdownAnalysis;
  FRONTMATTER: RegExp;
  parseFrontmatter: (yaml: string, warnings: string[]) => Record<string, unknown>;
};
const { analyzeMarkdown, analyzeMarkdownFast, FRONTMATTER, parseFrontmatter } = ours;

await initMd4w();
const mdit = new MarkdownIt('commonmark');

interface Candidate {
  name: string;
  what: string;
  run: (text: string) => unknown;
  sample?: number;
}
const candidates: Candidate[] = [
  {
    name: 'remark (today)',
    what: 'analyzeMarkdown: mdast + walk, full index answer',
    run: analyzeMarkdown,
    sample: Number(values['remark-notes']),
  },
  {
    name: 'markdown-it',
    what: 'md.parse: block + inline tokens, no offsets inside lines',
    run: (t) => mdit.parse(t, {}),
  },
  {
    name: '@lezer/markdown',
    what: 'parser.parse: a full syntax tree with offsets',
    run: (t) => lezer.parse(t),
  },
  { name: 'md4w', what: 'mdToJSON: md4c in WASM, a tree without offsets', run: (t) => mdToJSON(t) },
  { name: 'marked', what: 'marked.lexer: block + inline tokens, no offsets', run: (t) => marked.lexer(t) },
  {
    name: 'ours (analyzeMarkdownFast)',
    what: 'the full index answer, YAML included',
    run: analyzeMarkdownFast,
  },
  {
    name: 'YAML alone',
    what: 'parseFrontmatter of each note (part of every full answer above)',
    run: (t) => {
      const m = FRONTMATTER.exec(t);
      return m ? parseFrontmatter(m[0].slice(4, -4), []) : null;
    },
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: { c: Candidate; secs: number; mbs: number; perNote: number; n: number }[] = [];
for (const c of candidates) {
  const list = notes.slice(0, c.sample ?? notes.length);
  for (const t of list.slice(0, 300)) c.run(t); // warm-up
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    for (const t of list) c.run(t);
    const used = process.cpuUsage(c0);
    times.push((used.user + used.system) / 1e6);
  }
  const secs = median(times);
  const mbs = bytesOf(list) / 1e6 / secs;
  rows.push({ c, secs, mbs, perNote: (secs * 1000) / list.length, n: list.length });
  console.error(`${c.name}: ${secs.toFixed(3)} s, ${mbs.toFixed(1)} MB/s`);
}

const remark = rows[0]!;
console.log(
  `Machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}; date ${new Date().toISOString()}`,
);
console.log(
  `Command: npx tsx bench/parsers.ts --notes ${count} --seed ${seed} --runs ${runs} --remark-notes ${remark.n}`,
);
console.log(
  `Vault: ${count} generated notes, ${(bytesOf(notes) / 1e6).toFixed(1)} MB; one thread; median CPU time of ${runs} runs; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}.\n`,
);
console.log(
  '| candidate | what is measured | notes | median CPU s | MB/s | mean per note | x remark (MB/s) |',
);
console.log('|---|---|---:|---:|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.c.name} | ${r.c.what} | ${r.n} | ${r.secs.toFixed(3)} | ${r.mbs.toFixed(1)} | ${(r.perNote * 1000).toFixed(0)} µs | ${(r.mbs / remark.mbs).toFixed(1)} |`,
  );
