/**
 * How every long-running root lives as a process (Node, Bun, Deno, the relay, `quire serve` and
 * `quire relay`): the stop signals are taken before the start, so none can arrive in a window where
 * the runtime's default action (an exit by signal, no drain) would still apply; SIGINT or SIGTERM
 * runs the ordered stop, and a stop that cannot finish (a stuck disk, a hung handler) still ends the
 * process after the grace plus 10 s. The same signal once more within `ECHO_WINDOW_MS` is the
 * first one delivered twice (npm passes on what the process group already got; Ctrl-C reaches npm
 * and node at once) and is ignored; any later signal ends the process at once. A start that fails
 * on the operator's mistake is one line on stderr and exit 1; anything else is a bug and is thrown.
 * Runtime-neutral (no `node:*` import): the root chooses its host (`nodeHost`, `denoHost`).
 */
import { AuthStateError } from '../../core/auth/state.ts';
import { ChannelStateError } from '../../core/channels/store.ts';
import { ConfigError } from './config/index.ts';
import { unref } from './lifecycle.ts';

/** What a root's process offers: its stop signals, its exit and stderr. */
export interface Host {
  /** Calls `fn` on SIGINT or SIGTERM (or the loss of the parent, see `nodeHost`); returns the unsubscribe. */
  onStop(fn: (reason: string) => void): () => void;
  exit(code: number): never;
  stderr(text: string): void;
}

/** A started service: stops in order, within `shutdownGraceMs` for the requests in flight. */
export interface Service {
  shutdownGraceMs: number;
  stop(reason: string): Promise<unknown>;
}

/** True for a start failure an operator must fix (a bad variable, damaged state files). */
export function isOperatorError(err: unknown): err is Error {
  return err instanceof ConfigError || err instanceof AuthStateError || err instanceof ChannelStateError;
}

/** One clear line on stderr and exit 1 for an operator's mistake; anything else is a bug (thrown). */
export function failStart(err: unknown, host: Host, name = 'quire'): never {
  if (isOperatorError(err)) {
    host.stderr(`${name}: ${err.message}\n`);
    return host.exit(1);
  }
  throw err;
}

/**
 * How long after the first stop signal the same signal again is that signal's echo, not a second
 * request: under `npm start` the server gets a process group's SIGTERM (or a terminal's SIGINT)
 * both directly and forwarded by npm, within milliseconds of each other.
 */
export const ECHO_WINDOW_MS = 2_000;

/** Reasons `Host.onStop` gives that are signals (anything else, e.g. the parent's exit, is not). */
const SIGNALS = new Set(['SIGINT', 'SIGTERM']);

/**
 * Starts the service and resolves with the exit code once a stop signal has stopped it (0, or 1
 * when the stop failed). A start that throws releases the signals and rejects with its error.
 * While the stop runs, the first signal's echo (`ECHO_WINDOW_MS`) and the parent's exit are
 * ignored; another signal ends the process at once (exit 1), without the rest of the stop.
 */
export async function untilStopped(host: Host, start: () => Promise<Service>): Promise<number> {
  let signalled: (reason: string) => void = () => {};
  const stopSignal = new Promise<string>((resolve) => {
    signalled = resolve;
  });
  let first: { reason: string; at: number } | undefined;
  let echoed = false;
  const off = host.onStop((reason) => {
    const now = Date.now();
    if (!first) {
      first = { reason, at: now };
      signalled(reason);
      return;
    }
    if (!SIGNALS.has(reason)) return;
    if (!echoed && reason === first.reason && now - first.at < ECHO_WINDOW_MS) {
      echoed = true;
      return;
    }
    off();
    host.stderr(`quire: ${reason} again while stopping; exiting without finishing the stop\n`);
    host.exit(1);
  });
  let service: Service;
  try {
    service = await start();
  } catch (err) {
    off();
    throw err;
  }
  const reason = await stopSignal;
  const watchdog = setTimeout(() => {
    host.stderr('quire: shutdown took longer than SHUTDOWN_GRACE_MS + 10 s; exiting\n');
    host.exit(1);
  }, service.shutdownGraceMs + 10_000);
  unref(watchdog);
  const code = await service.stop(reason).then(
    () => 0,
    () => 1,
  );
  // A stop that ended is not late: where the process goes on (a host that embeds the service, a
  // test runner), the watchdog must not end it ten seconds later.
  clearTimeout(watchdog);
  off();
  return code;
}

type StopSignal = 'SIGINT' | 'SIGTERM';
type SignalListener = (signal: StopSignal, fn: () => void) => void;

/** Calls `fn` on SIGINT and SIGTERM through a runtime's pair of listener calls; returns the undo. */
function onStopSignals(
  add: SignalListener,
  remove: SignalListener,
  fn: (reason: string) => void,
): () => void {
  const listeners = (['SIGINT', 'SIGTERM'] as const).map((signal) => [signal, () => fn(signal)] as const);
  for (const [signal, listener] of listeners) add(signal, listener);
  return () => {
    for (const [signal, listener] of listeners) remove(signal, listener);
  };
}

/** The part of Node's `process` a host uses (Bun's is the same). */
declare const process: {
  env: Record<string, string | undefined>;
  ppid: number;
  on(signal: string, fn: () => void): void;
  off(signal: string, fn: () => void): void;
  exit(code: number): never;
  stderr: { write(text: string): void };
};

/**
 * Node's (and Bun's) process. Under npm (`npx quire serve`, `npm run ...`), npm hands a stop signal
 * to the shell it started, which dies without passing it on: the server would be left running with
 * its port, so when the process that started it goes away, that counts as SIGTERM too.
 */
export function nodeHost(env: Record<string, string | undefined> = process.env): Host {
  return {
    onStop(fn) {
      const offSignals = onStopSignals(
        (signal, listener) => process.on(signal, listener),
        (signal, listener) => process.off(signal, listener),
        fn,
      );
      const parent = process.ppid;
      // Told once: the parent does not come back.
      const orphanWatch =
        env.npm_lifecycle_event || env.npm_command
          ? setInterval(() => {
              if (process.ppid === parent) return;
              clearInterval(orphanWatch);
              fn('parent exited');
            }, 250)
          : undefined;
      unref(orphanWatch);
      return () => {
        offSignals();
        clearInterval(orphanWatch);
      };
    },
    exit: (code) => process.exit(code),
    stderr: (text) => process.stderr.write(text),
  };
}

/** The part of Deno's API a host uses. */
declare const Deno: {
  exit(code: number): never;
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', fn: () => void): void;
  removeSignalListener(signal: 'SIGINT' | 'SIGTERM', fn: () => void): void;
  stderr: { writeSync(bytes: Uint8Array): number };
};

/** Deno's process; `beforeExit` runs first (Deno.exit skips process 'exit' handlers: flush the logs). */
export function denoHost(beforeExit: () => void = () => {}): Host {
  return {
    onStop(fn) {
      return onStopSignals(
        (signal, listener) => Deno.addSignalListener(signal, listener),
        (signal, listener) => Deno.removeSignalListener(signal, listener),
        fn,
      );
    },
    exit(code) {
      beforeExit();
      return Deno.exit(code);
    },
    stderr(text) {
      const bytes = new TextEncoder().encode(text);
      for (let at = 0; at < bytes.length; ) at += Deno.stderr.writeSync(bytes.subarray(at));
    },
  };
}

/**
 * The answer to every request while a fetch-driven runtime (the Worker) could not start: an
 * operator's problem (503 naming it, until fixed) or anything else (500; `retry`: start again).
 */
export function startFailure(err: unknown): { response: Response; retry: boolean } {
  const operator = isOperatorError(err);
  console.error(`quire: ${operator ? err.message : `start failed: ${String(err)}`}`);
  const error = operator
    ? { code: 'NOT_READY', message: `quire: ${err.message}` }
    : { code: 'INTERNAL_ERROR', message: 'The server could not start; see the logs.' };
  return {
    response: Response.json({ success: false, error }, { status: operator ? 503 : 500 }),
    retry: !operator,
  };
}
