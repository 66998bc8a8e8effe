/**
 * Misspelt-word look-ups against a large vocabulary: the length-band scan of cfb7224 (each word of
 * a near length compared) against the trie walk (core/search/lexical/vocabulary.ts), in one run.
 * The vocabulary is the index terms of the markdown files (over 2 kB) under node_modules, about
 * 33,000 words (the generated bench vault has fewer than 800). Prints p50/p99 of the fastest of 3
 * look-ups per word and whether both find the same words.
 * Run: `node --import tsx bench/search-eval/typo-walk.ts` (TYPO_WALK_BASE: another revision).
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { typoBudget } from '../../core/search/lexical/expansion.ts';
import { terms } from '../../core/search/lexical/text.ts';
import { createVocabulary as walkVocab } from '../../core/search/lexical/vocabulary.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../..', import.meta.url));
const base = process.env.TYPO_WALK_BASE ?? 'cfb7224';
mkdirSync(join(here, '.baseline'), { recursive: true });
writeFileSync(
  join(here, '.baseline', 'vocabulary.ts'),
  execFileSync('git', ['show', `${base}:core/notes/search/vocabulary.ts`], { cwd: repo, encoding: 'utf8' }),
);
const { createVocabulary: scanVocab } = (await import(
  pathToFileURL(join(here, '.baseline', 'vocabulary.ts')).href
)) as { createVocabulary: typeof walkVocab };
const files = execSync(`find ${JSON.stringify(join(repo, 'node_modules'))} -name "*.md" -size +2k`, {
  encoding: 'utf8',
})
  .trim()
  .split('\n');
const vocab = new Set<string>();
const words: string[] = [];
for (const f of files)
  for (const t of terms(readFileSync(f, 'utf8'))) {
    vocab.add(t);
    if (/^[a-z]{5,12}$/.test(t)) words.push(t);
  }
const list = [...vocab];
let seed = 3;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return Math.floor((seed / 2 ** 31) * n);
};
const qs: string[] = [];
for (let k = 0; k < 200; k++) {
  const x = words[rnd(words.length)]!;
  qs.push(`${x.slice(0, 1)}${x[2]}${x[1]}${x.slice(3)}`);
}
const forms = (w: string) => {
  const f = new Set([w]);
  for (let cut = 1; cut <= 3 && w.length - cut >= 4; cut++) f.add(w.slice(0, -cut));
  return [...f];
};
const a = scanVocab(
  () => list,
  () => true,
);
const b = walkVocab(
  () => list,
  () => true,
);
const best = { scan: qs.map(() => 1e9), walk: qs.map(() => 1e9) };
// A first pass to warm up, then the fastest of 3.
for (let pass = 0; pass < 4; pass++) {
  qs.forEach((q, i) => {
    for (const [name, v] of [
      ['scan', a],
      ['walk', b],
    ] as const) {
      const t = performance.now();
      v.near(forms(q), typoBudget(q.length));
      const d = performance.now() - t;
      if (pass > 0) best[name][i] = Math.min(best[name][i]!, d);
    }
  });
}
const pct = (xs: number[], p: number) =>
  [...xs].sort((x, y) => x - y)[Math.floor(((xs.length - 1) * p) / 100)]!;
let same = 0;
for (const q of qs) {
  const x = a
    .near(forms(q), typoBudget(q.length), 1e6)
    .map((n) => n.term)
    .sort()
    .join();
  const y = b
    .near(forms(q), typoBudget(q.length), 1e6)
    .map((n) => n.term)
    .sort()
    .join();
  if (x === y) same++;
}
console.log(
  `vocabulary ${list.length} words, ${qs.length} misspelt words (a swap of letters 2-3, 5-12 letters), fastest of 3 per word`,
);
for (const n of ['scan', 'walk'] as const)
  console.log(n, 'p50', pct(best[n], 50).toFixed(2), 'p99', pct(best[n], 99).toFixed(2));
console.log('same words found (no cap):', same, 'of', qs.length);
