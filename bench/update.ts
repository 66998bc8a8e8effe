import { splitFrontmatter } from '../core/notes/markdown/remark.ts';
import { median, percentile } from './load.ts';
import { renderNote } from './vault-note.ts';
import { planVault } from './vault-plan.ts';
import { createRng } from './vault-text.ts';

/** One planned update: a note and its new body (no frontmatter, so the old block is kept). */
export interface PlannedUpdate {
  path: string;
  content: string;
}

/**
 * `count` updates of distinct notes of the generated vault, each with a fresh body
 * (new words and new links), the same for every run with the same seed.
 */
export function planUpdates(notes: number, seed: number, count: number): PlannedUpdate[] {
  const plan = planVault(notes, seed);
  const rng = createRng(seed ^ 0x5eed);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, notes)) chosen.add(rng.int(0, notes - 1));
  return [...chosen].map((i, k) => ({
    path: plan.notes[i]!.path,
    content: splitFrontmatter(renderNote(plan, i, seed + 1000 + k)).body,
  }));
}

/** Latency summary in milliseconds. */
export interface Timing {
  median: number;
  p90: number;
  p99: number;
  max: number;
  n: number;
}

/** Summarizes raw durations. */
export function timing(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: median(values),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    n: values.length,
  };
}

const noteUrl = (base: string, path: string) => `${base}/api/v1/notes/${encodeURIComponent(path)}`;

async function put(base: string, u: PlannedUpdate): Promise<number> {
  const t = performance.now();
  const res = await fetch(noteUrl(base, u.path), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ content: u.content }),
  });
  await res.arrayBuffer();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`PUT ${u.path} answered ${res.status}`);
  return ms;
}

/**
 * Sequential PUTs over HTTP; each latency is from sending to the last byte of the answer.
 * The first `warmup` are not counted (the write path is JIT-cold after read-only load).
 */
export async function httpUpdates(base: string, updates: PlannedUpdate[], warmup = 0): Promise<Timing> {
  const out: number[] = [];
  for (const [i, u] of updates.entries()) {
    const ms = await put(base, u);
    if (i >= warmup) out.push(ms);
  }
  return timing(out);
}

/**
 * The price of the list after a write: PUT one note, then time a full GET /notes (its
 * summaries are rebuilt and re-serialized whenever anything changed).
 */
export async function listAfterWrite(base: string, updates: PlannedUpdate[]): Promise<Timing> {
  const out: number[] = [];
  for (const u of updates) {
    await put(base, u);
    const t = performance.now();
    const res = await fetch(`${base}/api/v1/notes`);
    await res.arrayBuffer();
    out.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`GET /notes answered ${res.status}`);
  }
  return timing(out);
}

/**
 * Runs `during` while PUTting `updates` round robin, one every `intervalMs`, and returns
 * its result and how many writes were made: what readers see while someone edits.
 */
export async function whileWriting<T>(
  base: string,
  updates: PlannedUpdate[],
  intervalMs: number,
  during: () => Promise<T>,
): Promise<{ result: T; writes: number }> {
  let done = false;
  let writes = 0;
  const writer = (async () => {
    while (!done) {
      const t = performance.now();
      await put(base, updates[writes++ % updates.length]!);
      await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (performance.now() - t))));
    }
  })();
  try {
    return { result: await during(), writes };
  } finally {
    done = true;
    await writer;
  }
}

/** One GET, returning the status, ETag and body size. */
export async function probe(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; etag: string | null; bytes: number }> {
  const res = await fetch(url, { headers });
  const body = await res.arrayBuffer();
  return { status: res.status, etag: res.headers.get('etag'), bytes: body.byteLength };
}
