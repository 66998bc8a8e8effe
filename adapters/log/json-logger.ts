/**
 * The JSON-lines logger of every runtime: one object per line, filtered by level, secrets
 * redacted. Runtime-neutral (no `node:*` import): the root gives it its platform's writer
 * (Node, Bun, Deno: `adapters/node/stdout.ts`; the Worker: console.log; tests: an array).
 */
import type { Logger } from '../../core/ports.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Where the lines go; `urgent` (warnings and errors) asks a batching writer to write at once. */
export type LineWriter = (line: string, urgent?: boolean) => void;

/** Keys whose values are never written, whatever a caller passes. */
const SECRET_KEY = /key|secret|token|password|authorization|code/i;

/** JSON-lines logger to `write`, filtered by level. */
export function jsonLogger(level: LogLevel, write: LineWriter, now: () => number = Date.now): Logger {
  const min = ORDER[level];
  // Many lines share a millisecond under load, and a few field names recur: both are remembered.
  let lastMs = Number.NaN;
  let lastIso = '';
  const secret = new Map<string, boolean>();
  const isSecret = (k: string) => {
    let v = secret.get(k);
    if (v === undefined) {
      v = SECRET_KEY.test(k);
      if (secret.size < 1024) secret.set(k, v);
    }
    return v;
  };
  const log = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    const safe: Record<string, unknown> = { time: lastIso, level: lvl, msg };
    if (fields) for (const k in fields) safe[k] = isSecret(k) ? '[redacted]' : fields[k];
    write(`${JSON.stringify(safe)}\n`, ORDER[lvl] >= ORDER.warn);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    enabled: (lvl) => ORDER[lvl] >= min,
  };
}
