/** A progress bar for a terminal, or plain lines for a log: done/total, rate and ETA. */

const WIDTH = 24;

/** `12.3 s`, `4 min 5 s`. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

/** One rendering of the bar, e.g. `[######------] 512/1024 notes  800 notes/s  ETA 0.6 s`. */
export function progressLine(done: number, total: number, elapsedMs: number): string {
  const ratio = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(ratio * WIDTH);
  const rate = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const eta = rate > 0 ? (total - done) / rate : Number.POSITIVE_INFINITY;
  return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total} notes  ${Math.round(rate)} notes/s  ETA ${done >= total ? '0 s' : duration(eta)}`;
}

/**
 * Reports progress to `write`: on a terminal the line is redrawn in place at most every 100 ms;
 * otherwise a line at most every second, so logs stay readable. `finish` prints the last state.
 */
export function progressBar(
  write: (s: string) => void,
  tty: boolean,
  now: () => number = () => performance.now(),
) {
  const started = now();
  let last = Number.NEGATIVE_INFINITY;
  let latest = { done: 0, total: 0 };
  const draw = (final: boolean) => {
    const line = progressLine(latest.done, latest.total, now() - started);
    write(tty ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
  };
  return {
    update(done: number, total: number) {
      latest = { done, total };
      const t = now();
      if (t - last >= (tty ? 100 : 1000)) {
        last = t;
        draw(false);
      }
    },
    finish() {
      draw(true);
    },
  };
}
