/**
 * The fuzz's server process: the real Node root (deploy/node/main.ts, server and embedded relay)
 * plus a once-a-second JSON line of its own event loop's delay, so a slow health answer can be
 * told apart from a busy fuzz client. Its log lines go to stdout, as `quire serve`'s do.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const eld = monitorEventLoopDelay({ resolution: 5 });
eld.enable();
const ms = (ns: number) => Math.round(ns / 1e4) / 100;
// The worst second's figures, to name when the loop was held (pipes are written synchronously).
const tick = setInterval(() => {
  if (eld.max > 50e6)
    process.stdout.write(
      `${JSON.stringify({ level: 'debug', msg: 'fuzz event loop', p99: ms(eld.percentile(99)), max: ms(eld.max), at: Date.now() })}\n`,
    );
  eld.reset();
}, 1_000);
tick.unref();

await import('../../deploy/node/main.ts');
