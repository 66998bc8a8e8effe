import { writeSync } from 'node:fs';
import type { Logger } from '../../core/ports.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** Keys whose values are never written, whatever a caller passes. */
const SECRET_KEY = /key|secret|token|password|authorization|code/i;
/** Longest wait of a buffered stdout line (the exit handler writes what is left). */
const FLUSH_MS = 25;

/**
 * Lines to stdout, batched: lines go out in one write at most every FLUSH_MS (or once 512 are
 * waiting), so a request line costs a string, not a system call (a flush per turn of the event
 * loop still cost one write per two or three requests under load, 13% of a cached note's CPU).
 * Whatever is left is written before the process exits. Warnings and errors are written at once,
 * with the lines before them.
 */
export function bufferedStdout(): {
  write: (line: string, urgent?: boolean) => void;
  flush: () => void;
  flushSync: () => void;
} {
  let buf: string[] = [];
  let scheduled: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (scheduled) clearTimeout(scheduled);
    scheduled = null;
    if (buf.length === 0) return;
    const text = buf.join('');
    buf = [];
    process.stdout.write(text);
  };
  const flushSync = () => {
    try {
      if (buf.length) writeSync(1, buf.join(''));
    } catch {
      // stdout is gone or full at exit: nothing better to do with the last lines.
    }
    buf = [];
  };
  process.on('exit', flushSync);
  return {
    flushSync,
    write(line, urgent) {
      buf.push(line);
      if (urgent || buf.length >= 512) flush();
      else if (!scheduled) {
        scheduled = setTimeout(flush, FLUSH_MS);
        scheduled.unref();
      }
    },
    flush,
  };
}

let sharedStdout: ReturnType<typeof bufferedStdout> | null = null;

/** Writes the log lines still buffered, synchronously: for runtimes whose exit skips 'exit' handlers (Deno). */
export function flushLogsSync(): void {
  sharedStdout?.flushSync();
}

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
    out(`${JSON.stringify(safe)}\n`, ORDER[lvl] >= ORDER.warn);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}
