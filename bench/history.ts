/**
 * The history's costs, in one process, baseline and history interleaved in the same
 * run: note writes per second and p50 latency without and with history (fsync on and off),
 * storage after 10,000 small edits of a 10,000-note vault, listing 1,000 versions, restoring one.
 * Run: `node --experimental-strip-types bench/history.ts` (or `npx tsx bench/history.ts`);
 * ROUNDS=n (default 3) rounds of each; PARTS=interleaved for the interleaved write comparison only,
 * PARTS=storage for the storage figure only.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsHistoryStore } from '../adapters/store/fs-history-store.ts';
import { fsNoteStore } from '../adapters/store/fs-note-store.ts';
import { createCore } from '../core/create-core.ts';
import { createHistory } from '../core/history/history.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function noteText(i: number, edit = 0): string {
  const words: string[] = [];
  for (let k = 0; k < 60; k++) words.push(`word${(i * 31 + k * 7) % 997}`);
  return `# Note ${i}\n\n#tag${i % 20}\n\n${words.join(' ')}\n${edit ? `\nedit ${edit}\n` : ''}`;
}

async function duBytes(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += (await stat(join(e.parentPath, e.name))).size;
  }
  return n;
}

/** Updates per second and p50 ms of one configuration. */
async function writeRun(fsync: boolean, history: boolean, notes = 200, writes = 400) {
  const root = await mkdtemp(join(tmpdir(), 'quire-bench-hist-'));
  try {
    const store = fsNoteStore({ dir: join(root, 'vault'), fsync });
    const hs = history ? fsHistoryStore({ dir: join(root, 'history'), fsync }) : undefined;
    const core = createCore({ store, clock, logger: silent, history: hs });
    await core.load();
    for (let i = 0; i < notes; i++) await core.notes.create(`n/${i}.md`, noteText(i));
    const lat: number[] = [];
    const t0 = performance.now();
    for (let w = 0; w < writes; w++) {
      const s = performance.now();
      await core.notes.update(`n/${w % notes}.md`, { content: noteText(w % notes, w + 1) });
      lat.push(performance.now() - s);
    }
    // The lines still gathering reach the disk within the timed run.
    await core.notes.drain();
    const perSec = writes / ((performance.now() - t0) / 1000);
    await hs?.close();
    return { perSec, p50: median(lat) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The same, baseline and history in one process at the same time: each step updates a note of the
 * baseline vault, then one of the history vault, so both see the same machine load (a shared,
 * loaded box drifts too much between runs). Answers both p50s, means, and the time ratio.
 */
async function interleavedRun(fsync: boolean, notes = 200, writes = 1000) {
  const root = await mkdtemp(join(tmpdir(), 'quire-bench-hist-'));
  try {
    const make = async (history: boolean) => {
      const store = fsNoteStore({ dir: join(root, history ? 'vault-h' : 'vault-b'), fsync });
      const hs = history ? fsHistoryStore({ dir: join(root, 'history'), fsync }) : undefined;
      const core = createCore({ store, clock, logger: silent, history: hs });
      await core.load();
      return { core, hs, lat: [] as number[], made: [] as number[] };
    };
    const base = await make(false);
    const hist = await make(true);
    // Creates, interleaved the same way, then updates.
    for (let i = 0; i < notes; i++) {
      for (const side of i % 2 ? [hist, base] : [base, hist]) {
        const s = performance.now();
        await side.core.notes.create(`n/${i}.md`, noteText(i));
        side.made.push(performance.now() - s);
      }
    }
    for (let w = 0; w < writes; w++) {
      for (const side of w % 2 ? [hist, base] : [base, hist]) {
        const s = performance.now();
        await side.core.notes.update(`n/${w % notes}.md`, { content: noteText(w % notes, w + 1) });
        side.lat.push(performance.now() - s);
      }
    }
    // The lines still gathering (history.ts, the journal queue) reach the disk before closing.
    await hist.core.notes.drain();
    await hist.hs?.close();
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return {
      base: { p50: median(base.lat), mean: sum(base.lat) / writes },
      hist: { p50: median(hist.lat), mean: sum(hist.lat) / writes },
      ratio: sum(base.lat) / sum(hist.lat),
      creates: { base: median(base.made), hist: median(hist.made), ratio: sum(base.made) / sum(hist.made) },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function storageRun(notes = 10_000, edits = 10_000) {
  const root = await mkdtemp(join(tmpdir(), 'quire-bench-hist-'));
  try {
    const enc = new TextEncoder();
    let vault = 0;
    for (let i = 0; i < notes; i++) vault += enc.encode(noteText(i)).length;
    const hs = fsHistoryStore({ dir: join(root, 'history'), fsync: false });
    const h = createHistory({ store: hs, clock });
    await h.load();
    const cur = new Map<number, number>();
    for (let e = 0; e < edits; e++) {
      const i = (e * 7919) % notes;
      const prev = cur.get(i) ?? 0;
      await h.keepBefore(`n/${i}.md`, enc.encode(noteText(i, prev)));
      await h.record(`n/${i}.md`, enc.encode(noteText(i, e + 1)), 'bench', 'update');
      cur.set(i, e + 1);
    }
    // As it stands right after the last edit (the background compaction by size ran meanwhile).
    const raw = await duBytes(join(root, 'history'));
    const running = h.compacting() !== null;
    await h.compacting();
    const settled = await duBytes(join(root, 'history'));
    // What the hourly prune does on top: deflate what was stored as is since.
    await h.prune({ maxAgeMs: 1e15, maxBytes: 1e15, trashMs: 1e15, compressAfterBytes: 0 });
    await hs.close();
    return { vault, raw, running, settled, history: await duBytes(join(root, 'history')) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function listAndRestore() {
  const root = await mkdtemp(join(tmpdir(), 'quire-bench-hist-'));
  try {
    const store = fsNoteStore({ dir: join(root, 'vault'), fsync: true });
    const hs = fsHistoryStore({ dir: join(root, 'history'), fsync: false });
    const core = createCore({ store, clock, logger: silent, history: hs });
    await core.load();
    await core.notes.create('busy.md', noteText(1));
    for (let v = 1; v < 1000; v++) await core.notes.update('busy.md', { content: noteText(1, v) });
    const h = core.history!;
    const lists: number[] = [];
    for (let r = 0; r < 30; r++) {
      const s = performance.now();
      JSON.stringify(h.list('busy.md'));
      lists.push(performance.now() - s);
    }
    const restores: number[] = [];
    const ids = h.list('busy.md').map((v) => v.id);
    for (let r = 0; r < 30; r++) {
      const s = performance.now();
      const v = await h.get('busy.md', ids[100 + r]!);
      await core.notes.restore('busy.md', v.bytes, { to: 'same' });
      restores.push(performance.now() - s);
    }
    await core.notes.drain();
    await hs.close();
    return { versions: h.list('busy.md').length, listMs: median(lists), restoreMs: median(restores) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const rounds = Number(process.env.ROUNDS ?? 3);
console.log(
  `load before: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
// PARTS=interleaved runs only the interleaved write comparison (a longer run of it fits in the time).
const only = process.env.PARTS === 'interleaved' || process.env.PARTS === 'storage';
for (const fsync of only ? [] : [false, true]) {
  const base: { perSec: number; p50: number }[] = [];
  const hist: { perSec: number; p50: number }[] = [];
  for (let r = 0; r < rounds; r++) {
    base.push(await writeRun(fsync, false));
    hist.push(await writeRun(fsync, true));
  }
  const b = { perSec: median(base.map((x) => x.perSec)), p50: median(base.map((x) => x.p50)) };
  const h = { perSec: median(hist.map((x) => x.perSec)), p50: median(hist.map((x) => x.p50)) };
  console.log(
    `updates fsync=${fsync}: baseline ${b.perSec.toFixed(0)}/s p50 ${b.p50.toFixed(3)} ms; history ${h.perSec.toFixed(0)}/s p50 ${h.p50.toFixed(3)} ms; added p50 ${(h.p50 - b.p50).toFixed(3)} ms; ratio ${(h.perSec / b.perSec).toFixed(3)}`,
  );
}
for (const fsync of process.env.PARTS === 'storage' ? [] : [false, true]) {
  const runs: Awaited<ReturnType<typeof interleavedRun>>[] = [];
  for (let r = 0; r < rounds; r++) runs.push(await interleavedRun(fsync));
  const m = (f: (x: (typeof runs)[number]) => number) => median(runs.map(f));
  console.log(
    `interleaved updates fsync=${fsync}: baseline p50 ${m((x) => x.base.p50).toFixed(3)} ms mean ${m((x) => x.base.mean).toFixed(3)} ms; history p50 ${m((x) => x.hist.p50).toFixed(3)} ms mean ${m((x) => x.hist.mean).toFixed(3)} ms; added p50 ${m((x) => x.hist.p50 - x.base.p50).toFixed(3)} ms; updates/s ratio ${m((x) => x.ratio).toFixed(3)}; creates p50 ${m((x) => x.creates.base).toFixed(3)} → ${m((x) => x.creates.hist).toFixed(3)} ms, creates/s ratio ${m((x) => x.creates.ratio).toFixed(3)}`,
  );
}
if (!only || process.env.PARTS === 'storage') {
  const st = await storageRun();
  console.log(
    `storage: vault ${st.vault} B; history after 10,000 edits ${st.raw} B as it stands after the last edit (ratio ${(st.raw / st.vault).toFixed(3)}${st.running ? ', a background compaction running' : ''}), ${st.settled} B once it settled (ratio ${(st.settled / st.vault).toFixed(3)}), ${st.history} B after a forced compaction (ratio ${(st.history / st.vault).toFixed(3)})`,
  );
}
if (!only) {
  const lr = await listAndRestore();
  console.log(
    `list ${lr.versions} versions: ${lr.listMs.toFixed(3)} ms; restore: ${lr.restoreMs.toFixed(3)} ms`,
  );
}
console.log(
  `load after: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
