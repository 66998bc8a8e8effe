/**
 * The three-way merge of a write against a 1 MB note with 100 changes on each side (target: under
 * 50 ms), on real notes: this repository's own markdown, joined into one note. Quire's merge
 * (core/notes/merge, Myers by diff-sequences) beside the candidates it was chosen against,
 * alternated round by round: node-diff3 (its own LCS) and diff-match-patch (patch_make on one
 * side, patch_apply on the other). The candidates are not dependencies: each is measured when
 * installed (`npm install --no-save node-diff3 diff-match-patch`) and skipped by name otherwise;
 * a candidate slower than LIMIT_MS (default 20 s) in its first round is not run again, and
 * node-diff3 runs only up to NODE_DIFF3_MAX bytes (default 200000: at 1 MB one merge ran past 15
 * minutes on the 2-core machine of 2026-12-07 and was stopped).
 * Run: `npx tsx bench/merge.ts` (SIZES=100000,1048576, ROUNDS=5, EDITS=100).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { mergeText } from '../core/notes/merge/text.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const EDITS = Number(process.env.EDITS ?? 100);
const LIMIT_MS = Number(process.env.LIMIT_MS ?? 20_000);
const SIZES = (process.env.SIZES ?? '100000,1048576').split(',').map(Number);

/** The repository's markdown, joined to `size` characters: a long note of real prose and code. */
function realNote(size: number): string {
  const root = new URL('..', import.meta.url).pathname;
  const files = execFileSync('git', ['ls-files', '*.md'], { cwd: root }).toString().trim().split('\n');
  let text = '';
  for (let i = 0; text.length < size; i = (i + 1) % files.length)
    text += `${readFileSync(root + files[i], 'utf8')}\n`;
  return text.slice(0, size);
}

/** `edits` changes on each side at distinct lines (an edit in a line, a line inserted, one removed). */
function sides(base: string, edits: number, seed: number) {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const lines = base.split('\n');
  const at = new Set<number>();
  while (at.size < edits * 2) at.add(1 + Math.floor(rnd() * (lines.length - 2)));
  const order = [...at].sort((a, b) => a - b);
  const side = (which: number) => {
    const out = lines.slice();
    for (let k = order.length - 1; k >= 0; k--) {
      if (k % 2 !== which) continue;
      const i = order[k]!;
      const r = rnd();
      if (r < 0.4) out[i] = `${out[i]} (edited ${k})`;
      else if (r < 0.7) out.splice(i, 0, `a line inserted by side ${which}, edit ${k}`);
      else out.splice(i, 1);
    }
    return out.join('\n');
  };
  return { ours: side(0), theirs: side(1) };
}

type Candidate = { name: string; run: (o: string, a: string, b: string) => { conflicts: number } };

async function candidates(): Promise<{ list: Candidate[]; missing: string[] }> {
  const list: Candidate[] = [{ name: 'quire (diff-sequences)', run: mergeText }];
  const missing: string[] = [];
  try {
    // Typed here: the candidates are not dependencies (a checkout without them skips them).
    type Diff3 = (a: string[], o: string[], b: string[], opts: object) => { ok?: unknown }[];
    const { diff3Merge } = (await import('node-diff3' as string)) as { diff3Merge: Diff3 };
    list.push({
      name: 'node-diff3',
      run: (o, a, b) => ({
        conflicts: diff3Merge(a.split('\n'), o.split('\n'), b.split('\n'), {
          excludeFalseConflicts: true,
        }).filter((r) => !r.ok).length,
      }),
    });
  } catch {
    missing.push('node-diff3');
  }
  try {
    const DMP = ((await import('diff-match-patch' as string)) as { default: new () => DmpLike }).default;
    const dmp = new DMP();
    dmp.Diff_Timeout = 0;
    list.push({
      name: 'diff-match-patch',
      run: (o, a, b) => ({ conflicts: dmp.patch_apply(dmp.patch_make(o, a), b)[1].filter((x) => !x).length }),
    });
  } catch {
    missing.push('diff-match-patch');
  }
  return { list, missing };
}

interface DmpLike {
  Diff_Timeout: number;
  patch_make(a: string, b: string): unknown[];
  patch_apply(p: unknown[], t: string): [string, boolean[]];
}

const { list, missing } = await candidates();
console.log(
  `# merge: ${new Date().toISOString()}, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
if (missing.length) console.log(`skipped (not installed): ${missing.join(', ')}`);
for (const size of SIZES) {
  const base = realNote(size);
  const { ours, theirs } = sides(base, EDITS, 7);
  const times = new Map<string, number[]>(list.map((c) => [c.name, []]));
  const outcome = new Map<string, number>();
  const dropped = new Set<string>();
  for (let r = 0; r < ROUNDS; r++) {
    // Alternated: each round runs the candidates in another order.
    const order = r % 2 ? [...list].reverse() : list;
    for (const c of order) {
      if (dropped.has(c.name)) continue;
      if (c.name === 'node-diff3' && size > Number(process.env.NODE_DIFF3_MAX ?? 200_000)) continue;
      const t = performance.now();
      const { conflicts } = c.run(base, ours, theirs);
      const ms = performance.now() - t;
      times.get(c.name)!.push(ms);
      outcome.set(c.name, conflicts);
      if (ms > LIMIT_MS) dropped.add(c.name);
    }
  }
  const ours0 = median(times.get(list[0]!.name)!);
  console.log(`\n${size} bytes, ${base.split('\n').length} lines, ${EDITS} changes each side`);
  console.log('| candidate | median ms | rounds | regions left over | ratio to quire |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const c of list) {
    const ts = times.get(c.name)!;
    if (!ts.length) continue;
    const m = median(ts);
    const more = dropped.has(c.name) ? ` (over ${LIMIT_MS} ms: one round)` : '';
    console.log(
      `| ${c.name} | ${m.toFixed(1)} | ${ts.length}${more} | ${outcome.get(c.name)} | ${(m / ours0).toFixed(1)} |`,
    );
  }
}
