/**
 * Preloaded into a benchmarked server (`node --import ./bench/eld-probe.mjs dist/server/main.js`,
 * with an IPC channel): measures the server's event-loop delay with `monitorEventLoopDelay` and
 * answers `{type:'eld-reset'}` and `{type:'eld'}` (max and p99 in ms since the last reset), and
 * `{type:'cpu'}` (the process's CPU time so far, user + system, µs, every thread).
 * Changes nothing in the server itself.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const h = monitorEventLoopDelay({ resolution: 2 });
h.enable();
process.on('message', (m) => {
  if (m?.type === 'eld-reset') {
    h.reset();
    process.send?.({ type: 'eld-reset' });
  }
  if (m?.type === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ type: 'cpu', cpuUs: u.user + u.system });
  }
  if (m?.type === 'eld') {
    process.send?.({ type: 'eld', maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6 });
  }
});
process.channel?.unref();
