/**
 * Preloaded into a benchmarked server (`node --import ./bench/eld-probe.mjs dist/server/main.js`,
 * with an IPC channel): measures the server's event-loop delay with `monitorEventLoopDelay` and
 * answers `{type:'eld-reset'}` and `{type:'eld'}` (max and p99 in ms since the last reset), and
 * `{type:'cpu'}` (the process's CPU time so far, user + system, µs, every thread).
 * With ELD_GAPS=1 it also runs a 1 ms timer from each reset to the next `eld` and answers
 * `maxGapMs`: the longest time between two of its ticks beyond the 1 ms, counting only gaps that
 * began after the reset. A turn already running when the reset came (say the one that wrote the
 * answer the reset followed) is then not counted, as the histogram's first sample counts it.
 * Changes nothing in the server itself.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const h = monitorEventLoopDelay({ resolution: 2 });
h.enable();
const gaps = process.env.ELD_GAPS === '1';
let ticker;
let last = 0;
let maxGap = 0;
process.on('message', (m) => {
  if (m?.type === 'eld-reset') {
    h.reset();
    if (gaps) {
      clearInterval(ticker);
      last = performance.now();
      maxGap = 0;
      ticker = setInterval(() => {
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last - 1);
        last = now;
      }, 1);
      ticker.unref();
    }
    process.send?.({ type: 'eld-reset' });
  }
  if (m?.type === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ type: 'cpu', cpuUs: u.user + u.system });
  }
  if (m?.type === 'eld') {
    clearInterval(ticker);
    process.send?.({
      type: 'eld',
      maxMs: h.max / 1e6,
      p99Ms: h.percentile(99) / 1e6,
      ...(gaps ? { maxGapMs: maxGap } : {}),
    });
  }
});
process.channel?.unref();
