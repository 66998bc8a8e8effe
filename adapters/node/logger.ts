import { writeSync } from 'node:fs';
import type { Logger } from '../../core/ports.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Keys whose values are never written, whatever a caller passes. */
const SECRET_KEY = /key|secret|token|password|authorization|code/i;

/**
 * Lines to stdout, batched: lines of one turn of the event loop go out in one write (a request
 * line costs a string, not a system call), and whatever is left is written before the process
 * exits. Warnings and errors are written at once.
 */
export function bufferedStdout(): { write: (line: string, urgent?: boolean) => void; flush: () => void } {
  let buf: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buf.length === 0) return;
    const text = buf.join('');
    buf = [];
    process.stdout.write(text);
  };
  process.on('exit', () => {
    try {
      if (buf.length) writeSync(1, buf.join(''));
    } catch {
      // stdout is gone or full at exit: nothing better to do with the last lines.
    }
    buf = [];
  });
  return {
    write(line, urgent) {
      buf.push(line);
      if (urgent || buf.length >= 512) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

let sharedStdout: ReturnType<typeof bufferedStdout> | null = null;

/** JSON-lines logger to a writable sink (stdout by default, batched), filtered by level. */
export function jsonLogger(
  level: LogLevel,
  write?: (line: string, urgent?: boolean) => void,
  now: () => number = Date.now,
): Logger {
  if (!write) {
    sharedStdout ??= bufferedStdout();
    write = sharedStdout.write;
  }
  const out = write;
  const min = ORDER[level];
  const log = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const safe: Record<string, unknown> = { time: new Date(now()).toISOString(), level: lvl, msg };
    if (fields) for (const k in fields) safe[k] = SECRET_KEY.test(k) ? '[redacted]' : fields[k];
    out(`${JSON.stringify(safe)}\n`, ORDER[lvl] >= ORDER.warn);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}
