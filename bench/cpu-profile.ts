/**
 * Reads a V8 CPU profile (`node --cpu-prof`, e.g. BENCH_RELAY_CPU_PROF of bench/relay-throughput.ts)
 * and prints where the time went: self time by function and by file (node internals, dependencies
 * and the tree's own files apart), and the inclusive time of the functions named with --focus.
 *
 *   npx tsx bench/cpu-profile.ts FILE.cpuprofile [--top 40] [--focus name,name]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, focus: { type: 'string', default: '' } },
});
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: tsx bench/cpu-profile.ts FILE.cpuprofile [--top N] [--focus a,b]\n');
  process.exit(2);
}
const prof = JSON.parse(await readFile(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Self time per node from the samples (each sample's delta is the time up to the next).
const self = new Map<number, number>();
for (let i = 0; i < prof.samples.length; i++) {
  const d = prof.timeDeltas[i + 1] ?? 0;
  self.set(prof.samples[i]!, (self.get(prof.samples[i]!) ?? 0) + d);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()]
  .filter(([id]) =>
    ['(idle)', '(program)', '(garbage collector)'].includes(byId.get(id)!.callFrame.functionName),
  )
  .map(([id, t]) => [byId.get(id)!.callFrame.functionName, t] as const);
const short = (url: string) =>
  url
    .replace(/^file:\/\/.*?\/node_modules\//, 'nm:')
    .replace(/^file:\/\/\/work\/[^/]+\/[^/]+\//, '')
    .replace(/^node:/, 'node:');
const label = (n: Node) =>
  `${n.callFrame.functionName || '(anon)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const pct = (t: number) => `${((t / total) * 100).toFixed(1)}%`;
console.log(`total ${(total / 1000).toFixed(0)} ms; ${idle.map(([n, t]) => `${n} ${pct(t)}`).join(', ')}`);

const sum = (key: (n: Node) => string) => {
  const m = new Map<string, number>();
  for (const [id, t] of self) {
    const k = key(byId.get(id)!);
    m.set(k, (m.get(k) ?? 0) + t);
  }
  return [...m.entries()].sort((a, b) => b[1] - a[1]);
};
const top = Number(values.top);
console.log('\nself time by function:');
for (const [k, t] of sum(label).slice(0, top)) console.log(`${pct(t).padStart(6)}  ${k}`);
console.log('\nself time by file:');
for (const [k, t] of sum((n) => short(n.callFrame.url) || n.callFrame.functionName).slice(0, top))
  console.log(`${pct(t).padStart(6)}  ${k}`);

// Inclusive time of named functions (a node counted once even when the name recurs above it).
for (const name of values.focus.split(',').filter(Boolean)) {
  let t = 0;
  for (const [id, d] of self) {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (byId.get(at)!.callFrame.functionName === name) {
        t += d;
        break;
      }
  }
  console.log(`inclusive ${name}: ${pct(t)}`);
}

// Top-down: inclusive time of the call tree's nodes over --tree-min of the busy time (--tree-depth deep).
const busy = total - idle.filter(([n]) => n === '(idle)').reduce((a, [, t]) => a + t, 0);
const incl = new Map<number, number>();
const inclusive = (id: number): number => {
  const n = byId.get(id)!;
  let t = self.get(id) ?? 0;
  for (const c of n.children ?? []) t += inclusive(c);
  incl.set(id, t);
  return t;
};
const root = prof.nodes[0]!;
inclusive(root.id);
const depth = Number(process.env.TREE_DEPTH ?? 0);
if (depth > 0) {
  const min = Number(process.env.TREE_MIN ?? 1) / 100;
  console.log(`\ncall tree (share of busy time ${(busy / 1000).toFixed(0)} ms):`);
  const walk = (id: number, d: number) => {
    const t = incl.get(id)!;
    if (t < busy * min || d > depth) return;
    const n = byId.get(id)!;
    if (n.callFrame.functionName !== '(idle)')
      console.log(`${'  '.repeat(d)}${((t / busy) * 100).toFixed(1)}% ${label(n)}`);
    for (const c of [...(n.children ?? [])].sort((a, b) => incl.get(b)! - incl.get(a)!)) walk(c, d + 1);
  };
  walk(root.id, 0);
}
