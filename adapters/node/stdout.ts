import { writeSync } from 'node:fs';
import { type BatchedWriter, batchedWriter } from '../log/batched.ts';

let shared: BatchedWriter | null = null;

/**
 * The process's stdout as a batched line writer (one per process, shared by every logger in it);
 * what is still buffered is written before the process exits. Node's, and Bun's and Deno's through
 * their Node compatibility.
 */
export function stdoutLines(): BatchedWriter {
  if (!shared) {
    const out = batchedWriter({
      write: (text) => process.stdout.write(text),
      writeSync: (text) => writeSync(1, text),
    });
    process.on('exit', out.flushSync);
    shared = out;
  }
  return shared;
}

/** Writes the log lines still buffered, synchronously: for runtimes whose exit skips 'exit' handlers (Deno). */
export function flushLogsSync(): void {
  shared?.flushSync();
}
