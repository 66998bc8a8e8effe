/**
 * Frontmatter limits (security review, fourth round, finding 6): how long the worst frontmatter
 * the limits admit holds the event loop while a note is created, and how long an over-limit value
 * (600,000 keys) takes to be refused. In one process over a memory store (the vault's file system
 * is not what is measured): the event loop's longest delay (`monitorEventLoopDelay`, 1 ms
 * resolution) and the wall time of each create, median of N runs.
 *
 *   npx tsx bench/frontmatter-limits.ts [runs=7]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { stringify as stringifyYaml } from 'yaml';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import {
  checkFrontmatterLimits,
  FRONTMATTER_MAX_BYTES,
  FRONTMATTER_MAX_KEYS,
  frontmatterProblems,
} from '../core/notes/frontmatter-check.ts';
import { MAX_FRONTMATTER_BREAKS } from '../core/notes/markdown/parts.ts';
import { createNoteService } from '../core/notes/service.ts';

const runs = Number(process.argv[2] ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The worst shapes the limits admit, each just inside them. */
const perKey = Math.floor(FRONTMATTER_MAX_BYTES / FRONTMATTER_MAX_KEYS) - 16;
const cases: Record<string, () => { content: string; frontmatter?: Record<string, unknown> }> = {
  'keys: 500 short keys': () => ({
    content: '# n\n',
    frontmatter: Object.fromEntries(Array.from({ length: FRONTMATTER_MAX_KEYS }, (_, i) => [`k${i}`, i])),
  }),
  'keys+bytes: 500 keys of ~110 chars': () => ({
    content: '# n\n',
    frontmatter: Object.fromEntries(
      Array.from({ length: FRONTMATTER_MAX_KEYS - 1 }, (_, i) => [`k${i}`, `v${i} ${'w'.repeat(perKey)}`]),
    ),
  }),
  'bytes: one 60 KiB string with quotes and colons': () => ({
    content: '# n\n',
    frontmatter: { s: 'a "b": c '.repeat(Math.floor((FRONTMATTER_MAX_BYTES - 4096) / 10)) },
  }),
  'nesting: 490 keys and items 60 levels deep': () => {
    let v: unknown = Array.from({ length: 215 }, (_, i) => ({ i }));
    for (let d = 0; d < 58; d++) v = { a: v };
    return { content: '# n\n', frontmatter: { deep: v } };
  },
  'yaml text: flow map of 1000 keys in content': () => {
    const pairs: string[] = [];
    let len = 2;
    for (let i = 0; pairs.length < MAX_FRONTMATTER_BREAKS - 2 && len < FRONTMATTER_MAX_BYTES - 64; i++) {
      const p = `k${i}: ${i}`;
      pairs.push(p);
      len += p.length + 2;
    }
    return { content: `---\n{${pairs.join(', ')}}\n---\n# n\n` };
  },
};

async function measure(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number; maxDelay: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await fn().catch(() => {});
  const c = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  const cpu = (c.user + c.system) / 1000;
  // One more turn, so the histogram sees the last delay.
  await new Promise((r) => setTimeout(r, 5));
  h.disable();
  return { wall, cpu, maxDelay: h.max / 1e6 };
}

const notes = createNoteService({ store: memoryNoteStore(), clock: { now: Date.now } });
await notes.load();
console.log(
  `frontmatter limits: ${FRONTMATTER_MAX_KEYS} keys, ${FRONTMATTER_MAX_BYTES} bytes; ${runs} runs each`,
);
for (const [name, make] of Object.entries(cases)) {
  const walls: number[] = [];
  const cpus: number[] = [];
  const delays: number[] = [];
  let status = '';
  for (let r = 0; r < runs; r++) {
    const input = make();
    const m = await measure(async () => {
      try {
        await notes.create(`b/${name.replace(/\W+/g, '-')}-${r}.md`, input.content, input.frontmatter);
        status = 'written';
      } catch (err) {
        status = (err as { code?: string }).code ?? String(err);
      }
    });
    walls.push(m.wall);
    cpus.push(m.cpu);
    delays.push(m.maxDelay);
  }
  console.log(
    `${name.padEnd(48)} ${status.padEnd(22)} wall ${median(walls).toFixed(1)} ms, cpu ${median(cpus).toFixed(1)} ms, max loop delay median ${median(delays).toFixed(1)} ms (max ${Math.max(...delays).toFixed(1)})`,
  );
}
// Over the limit: 600,000 keys (the finding's POST, without the HTTP body parse).
const huge = Object.fromEntries(Array.from({ length: 600_000 }, (_, i) => [`k${i}`, 'v']));
const checks: number[] = [];
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  try {
    checkFrontmatterLimits(huge, 'The frontmatter');
  } catch {}
  checks.push(performance.now() - t0);
}
console.log(`${'600,000 keys refused (the check alone)'.padEnd(48)} median ${median(checks).toFixed(1)} ms`);
const json = JSON.stringify({ path: 'a.md', content: 'x', frontmatter: huge });
const parses: number[] = [];
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  JSON.parse(json);
  parses.push(performance.now() - t0);
}
console.log(
  `${`its JSON body parse (${(json.length / 1048576).toFixed(1)} MiB), for scale`.padEnd(48)} median ${median(parses).toFixed(1)} ms`,
);

// Baseline in the same run: what the server did before the limits with an over-limit value (the
// YAML made, then read back), against the limits' check, on 20,000 keys.
const over = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
const before: number[] = [];
const after: number[] = [];
for (let r = 0; r < runs; r++) {
  let t0 = performance.now();
  frontmatterProblems(`---\n${stringifyYaml(over)}---\nx`);
  before.push(performance.now() - t0);
  t0 = performance.now();
  try {
    checkFrontmatterLimits(over, 'The frontmatter');
  } catch {}
  after.push(performance.now() - t0);
}
console.log(
  `20,000 keys: before (YAML made and read back) median ${median(before).toFixed(1)} ms, now (refused by the check) ${median(after).toFixed(2)} ms, ratio ${(median(before) / median(after)).toFixed(0)}x`,
);
