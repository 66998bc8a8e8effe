/**
 * Delta debugging (ddmin): a shorter subsequence of `ops` that still fails, within `runs` replays
 * and `ms`. `fails` replays a candidate and answers its failure (the message, and the operations
 * that ran when fewer did: the skipped ones changed nothing), or null when it passes.
 */
export async function ddmin<T>(
  ops: T[],
  fails: (candidate: T[]) => Promise<{ message: string; ran?: T[] } | null>,
  runs: number,
  ms: number,
  log: (l: string) => void,
): Promise<{ minimal: T[]; message: string }> {
  const deadline = Date.now() + ms;
  let best = ops;
  let message = '';
  let n = 2;
  while (runs > 0 && best.length > 1 && Date.now() < deadline) {
    const size = Math.ceil(best.length / n);
    let reduced = false;
    for (let i = 0; i < n && runs > 0 && Date.now() < deadline; i++) {
      const candidate = [...best.slice(0, i * size), ...best.slice((i + 1) * size)];
      if (candidate.length === 0) continue;
      runs--;
      const r = await fails(candidate);
      if (r) {
        best = r.ran ?? candidate;
        message = r.message;
        n = Math.max(n - 1, 2);
        reduced = true;
        log(`shrink: ${best.length} operations still fail`);
        break;
      }
    }
    if (!reduced) {
      if (n >= best.length) break;
      n = Math.min(best.length, n * 2);
    }
  }
  return { minimal: best, message };
}
