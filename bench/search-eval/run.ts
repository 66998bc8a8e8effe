/**
 * Search quality on real vaults: labelled questions (bench/search-eval/*.json, each
 * `{q, kind, relevant}`) over public markdown vaults fetched for the bench (never committed,
 * never in CI). Reports hit@5 and MRR@10 per kind of question and query latency p50/p99 for
 * Quire and for MiniSearch, Orama and FlexSearch (default options) in the same run.
 *
 * Vaults: SEARCH_EVAL_VAULTS (default /tmp/quire-search-eval) holds `obsidian-help/` (the
 * `en/` folder of obsidianmd/obsidian-help) and `silverbullet/` (the `docs/` folder of
 * silverbulletmd/silverbullet); see docs/reference/search.md. Run: `npm run bench:search`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Engine, flexsearch, minisearch, orama, quire } from './engines.ts';
import { readVault } from './vault.ts';

interface Question {
  q: string;
  kind: 'natural' | 'keyword' | 'typo' | 'paraphrase';
  relevant: string[];
}
const here = fileURLToPath(new URL('.', import.meta.url));
const root = process.env.SEARCH_EVAL_VAULTS ?? '/tmp/quire-search-eval';
const SETS = [
  { name: 'obsidian-help', questions: 'obsidian-help.json' },
  { name: 'silverbullet', questions: 'silverbullet.json' },
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

interface Score {
  hit5: number[];
  rr: number[];
}
const KINDS = ['natural', 'keyword', 'typo', 'paraphrase'] as const;

async function main(): Promise<void> {
  const totals = new Map<string, { all: Score; kinds: Map<string, Score>; ms: number[] }>();
  const misses: string[] = [];
  for (const set of SETS) {
    const dir = join(root, set.name);
    if (!existsSync(dir)) {
      process.stderr.write(`missing vault ${dir}: see docs/reference/search.md (Evaluation)\n`);
      process.exit(2);
    }
    const files = readVault(dir);
    const questions = JSON.parse(readFileSync(join(here, set.questions), 'utf8')) as Question[];
    const engines: Engine[] = [await quire(files), minisearch(files), await orama(files), flexsearch(files)];
    for (const e of engines) {
      const t = totals.get(e.name) ?? {
        all: { hit5: [] as number[], rr: [] as number[] },
        kinds: new Map<string, Score>(),
        ms: [] as number[],
      };
      totals.set(e.name, t);
      for (const q of questions) await e.search(q.q, 10); // warm
      for (const q of questions) {
        const start = performance.now();
        const got = await e.search(q.q, 10);
        t.ms.push(performance.now() - start);
        const rank = got.findIndex((p) => q.relevant.includes(p));
        const hit = rank >= 0 && rank < 5 ? 1 : 0;
        const rr = rank >= 0 ? 1 / (rank + 1) : 0;
        if (e.name === 'Quire' && !hit && process.env.SEARCH_EVAL_MISSES) {
          misses.push(`${set.name} [${q.kind}] ${q.q} -> ${got.slice(0, 3).join(' | ')}`);
        }
        t.all.hit5.push(hit);
        t.all.rr.push(rr);
        const k = t.kinds.get(q.kind) ?? { hit5: [], rr: [] };
        t.kinds.set(q.kind, k);
        k.hit5.push(hit);
        k.rr.push(rr);
      }
    }
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const f = (x: number) => x.toFixed(2);
  const n = totals.get('Quire')?.all.hit5.length ?? 0;
  const lines = [
    `${n} questions; hit@5 / MRR@10 per kind; latency per query (ms)`,
    '',
    `| engine | all | ${KINDS.join(' | ')} | p50 ms | p99 ms |`,
    `|---|---|${KINDS.map(() => '---').join('|')}|---|---|`,
  ];
  for (const [name, t] of totals) {
    const cell = (s: Score | undefined) => (s ? `${f(mean(s.hit5))} / ${f(mean(s.rr))}` : '-');
    lines.push(
      `| ${name} | ${cell(t.all)} | ${KINDS.map((k) => `${cell(t.kinds.get(k))} (${t.kinds.get(k)?.hit5.length ?? 0})`).join(' | ')} | ${pct(t.ms, 50).toFixed(2)} | ${pct(t.ms, 99).toFixed(2)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (misses.length) process.stdout.write(`\nQuire misses:\n${misses.join('\n')}\n`);
}

await main();
