/**
 * Issue 33: two parts of a cold start measured in one process, CPU time, medians of interleaved
 * rounds (a loaded machine weighs on both alike).
 * - The parse: `analyzeNote` of another checkout (COLD_PARTS_BASE, e.g. main) against this one's on
 *   the first 4,000 notes of a vault, and whether both give the same analysis for every note.
 * - Reading and hashing every note in batches of 128: through `read` and `crypto.subtle` (before)
 *   against `readMany` and `sha256HexNow` (now); CPU of the process and of its main thread.
 * Usage: `COLD_PARTS_BASE=/work/wt/base npx tsx bench/cold-parts.ts .bench-vaults/vault-10000-s42`
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fsNoteStore } from '../adapters/store/fs-note-store.ts';
import { sha256Hex, sha256HexNow } from '../core/crypto.ts';
import { analyzeNote } from '../core/notes/markdown/analyzer.ts';

const vault = process.argv[2] ?? '.bench-vaults/vault-10000-s42';
const rounds = Number(process.env.COLD_PARTS_ROUNDS ?? 7);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mainCpu = () => {
  const f = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;

const files: string[] = [];
const walk = (d: string) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    if (e.isDirectory()) walk(join(d, e.name));
    else if (e.name.endsWith('.md')) files.push(join(d, e.name));
  }
};
walk(vault);

if (process.env.COLD_PARTS_BASE) {
  const base = (await import(join(process.env.COLD_PARTS_BASE, 'core/notes/markdown/analyzer.ts'))) as {
    analyzeNote: typeof analyzeNote;
  };
  const texts = files.slice(0, 4000).map((f) => readFileSync(f, 'utf8'));
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t = cpu();
    for (const x of texts) base.analyzeNote(x);
    a.push(cpu() - t);
    t = cpu();
    for (const x of texts) analyzeNote(x);
    b.push(cpu() - t);
  }
  let same = 0;
  for (const x of texts) if (JSON.stringify(base.analyzeNote(x)) === JSON.stringify(analyzeNote(x))) same++;
  const per = (v: number[]) => ((1000 * median(v)) / texts.length).toFixed(1);
  console.log(
    `parse: base ${per(a)} µs/note, this ${per(b)} µs/note, ${(median(b) / median(a)).toFixed(2)}x; identical analyses ${same}/${texts.length}`,
  );
}

const store = fsNoteStore({ dir: vault, watch: false });
const paths = (await store.list()).map((f) => f.path).filter((p) => !p.startsWith('bench-'));
const ways: Record<string, (batch: string[]) => Promise<unknown>> = {
  'read + crypto.subtle': (batch) =>
    Promise.all(batch.map(async (p) => sha256Hex((await store.read(p)) ?? new Uint8Array()))),
  'readMany + sha256HexNow': async (batch) =>
    Promise.all(
      (await store.readMany!(batch)).map((b) => sha256HexNow(b ?? new Uint8Array()) ?? sha256Hex(b!)),
    ),
};
const got: Record<string, { all: number[]; main: number[] }> = {};
for (let r = 0; r < Math.min(rounds, 5); r++) {
  for (const [name, way] of Object.entries(ways)) {
    const m0 = mainCpu();
    const a0 = cpu();
    for (let i = 0; i < paths.length; i += 128) await way(paths.slice(i, i + 128));
    got[name] ??= { all: [], main: [] };
    got[name].all.push(cpu() - a0);
    got[name].main.push(mainCpu() - m0);
  }
}
for (const [name, g] of Object.entries(got))
  console.log(
    `${name}: ${paths.length} notes, process CPU ${median(g.all).toFixed(0)} ms, main thread ${median(g.main).toFixed(0)} ms`,
  );
