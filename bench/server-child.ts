/**
 * One Quire server in its own process, for clean RSS and CPU figures. Configured by the usual
 * environment (PORT, HOST, DATA_DIR, VAULT_DIR, LOG_LEVEL); reports over IPC:
 * `ready` (readyMs from startServer() to `ready`, memory), `mem` on request, `stopped`.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../deploy/node/server.ts';
import { loadConfig } from '../deploy/shared/config/server.ts';
import { exitWithParent, memory, report } from './children.ts';

exitWithParent();
try {
  const config = loadConfig(process.env);
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const server = await startServer(config);
  await server.ready;
  const readyMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  // CPU seconds of every thread of the process (workers included) from startServer() to ready.
  const readyCpuMs = (cpu.user + cpu.system) / 1000;
  let cacheBytes = 0;
  // The binary snapshot, or the JSON cache of older code.
  for (const name of ['index-snapshot.bin', 'index-cache.json']) {
    try {
      cacheBytes = statSync(join(config.dataDir, name)).size;
      break;
    } catch {}
  }
  const uptimeMs = process.uptime() * 1000;
  await report({ type: 'ready', url: server.url, readyMs, readyCpuMs, uptimeMs, cacheBytes, ...memory() });
  process.on('message', (m: { type?: string }) => {
    if (m.type === 'mem') void report({ type: 'mem', ...memory() });
    if (m.type === 'stop') {
      const t = performance.now();
      server.stop('bench').then(
        () => report({ type: 'stopped', stopMs: performance.now() - t }).then(() => process.exit(0)),
        (err: unknown) => report({ type: 'error', message: String(err) }).then(() => process.exit(1)),
      );
    }
  });
} catch (err) {
  await report({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
}
