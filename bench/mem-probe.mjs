/**
 * Preloaded into a benchmarked server (`node --import ./bench/mem-probe.mjs dist/server/main.js`,
 * with an IPC channel): answers `{type:'mem'}` with the process's memory (RSS, V8 heap used and
 * total, external, array buffers, and V8's heap spaces) and `{type:'heap-snapshot', file}` by
 * writing a heap snapshot there (v8.writeHeapSnapshot). Changes nothing in the server itself.
 */
import v8 from 'node:v8';

process.on('message', (m) => {
  if (m?.type === 'mem') {
    const u = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
    );
    process.send?.({ type: 'mem', ...u, spaces });
  }
  if (m?.type === 'heap-snapshot') {
    const file = v8.writeHeapSnapshot(m.file);
    process.send?.({ type: 'heap-snapshot', file });
  }
});
process.channel?.unref();
