import type { Logger } from '../../core/ports.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Keys whose values are never written, whatever a caller passes. */
const SECRET_KEY = /key|secret|token|password|authorization|code/i;

/** JSON-lines logger to a writable sink (stdout by default), filtered by level. */
export function jsonLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stdout.write(l),
  now: () => number = Date.now,
): Logger {
  const min = ORDER[level];
  const log = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const safe: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields ?? {})) safe[k] = SECRET_KEY.test(k) ? '[redacted]' : v;
    write(`${JSON.stringify({ time: new Date(now()).toISOString(), level: lvl, msg, ...safe })}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}
