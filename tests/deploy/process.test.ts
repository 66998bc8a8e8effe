/**
 * deploy/shared/process.ts, the one way a long-running root lives as a process, over a host that
 * records what the process would do (the host is the platform's port: Node's, Bun's or Deno's
 * `process`), and the logger every root builds on, which must run where there is no `node:`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { batchedWriter } from '../../adapters/log/batched.ts';
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { ConfigError } from '../../deploy/shared/config/index.ts';
import {
  ECHO_WINDOW_MS,
  failStart,
  type Host,
  isOperatorError,
  untilStopped,
} from '../../deploy/shared/process.ts';
import { ROOT } from '../helpers/child.ts';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** A host whose signals the test sends; `exit` throws (the process would end there). */
function recordingHost() {
  const listeners = new Set<(reason: string) => void>();
  const stderr: string[] = [];
  const host: Host = {
    onStop(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    exit(code) {
      throw new Exited(code);
    },
    stderr: (t) => void stderr.push(t),
  };
  const signal = (reason: string) => {
    for (const fn of [...listeners]) fn(reason);
  };
  return { host, stderr, signal, listening: () => listeners.size };
}

describe('untilStopped', () => {
  it('takes the stop signals before the start: a signal during the start stops the service once it runs', async () => {
    const h = recordingHost();
    const steps: string[] = [];
    let started: () => void = () => {};
    const code = untilStopped(h.host, async () => {
      await new Promise<void>((r) => {
        started = r;
      });
      steps.push('started');
      return { shutdownGraceMs: 100, stop: async (reason: string) => void steps.push(`stop ${reason}`) };
    });
    expect(h.listening()).toBe(1);
    h.signal('SIGTERM');
    // Still listening while the stop runs (a second signal must not take the default action).
    expect(h.listening()).toBe(1);
    started();
    expect(await code).toBe(0);
    expect(steps).toEqual(['started', 'stop SIGTERM']);
    // Stopped: the signals are released.
    expect(h.listening()).toBe(0);
  });

  /**
   * A service whose stop runs until `finish()` (called before the stop began, the stop ends at
   * once); the stop's reason is recorded. A stop left running would leave its watchdog armed.
   */
  function slowService() {
    let finished = false;
    let finish: () => void = () => {
      finished = true;
    };
    const stops: string[] = [];
    const service = {
      shutdownGraceMs: 100,
      stop: (reason: string) => {
        stops.push(reason);
        return new Promise<void>((r) => {
          if (finished) r();
          else finish = r;
        });
      },
    };
    return { service, stops, finish: () => finish() };
  }

  it("ignores the first signal's echo while the stop runs (npm start: npm forwards what node already got)", async () => {
    for (const signal of ['SIGTERM', 'SIGINT']) {
      const h = recordingHost();
      const s = slowService();
      const code = untilStopped(h.host, async () => s.service);
      await Promise.resolve();
      h.signal(signal);
      await Promise.resolve();
      // The echo, and the parent (npm) leaving meanwhile, do not end the process.
      expect(() => h.signal(signal)).not.toThrow();
      expect(() => h.signal('parent exited')).not.toThrow();
      s.finish();
      expect(await code).toBe(0);
      expect(s.stops).toEqual([signal]);
      expect(h.stderr).toEqual([]);
    }
  });

  it('a third signal, another signal, or the same one after the echo window ends the process at once', async () => {
    const now = vi.spyOn(Date, 'now');
    try {
      const cases: [string, number][][] = [
        [
          ['SIGINT', 0],
          ['SIGINT', 10],
          ['SIGINT', 20],
        ],
        [
          ['SIGTERM', 0],
          ['SIGINT', 10],
        ],
        [
          ['SIGTERM', 0],
          ['SIGTERM', ECHO_WINDOW_MS + 1],
        ],
      ];
      for (const signals of cases) {
        const h = recordingHost();
        const s = slowService();
        const code = untilStopped(h.host, async () => s.service);
        await Promise.resolve();
        const last = signals.length - 1;
        for (const [i, [signal, at]] of signals.entries()) {
          now.mockReturnValue(1_000_000 + at);
          if (i < last) h.signal(signal);
          else expect(() => h.signal(signal)).toThrow(new Exited(1));
        }
        expect(h.stderr.join('')).toMatch(/again while stopping/);
        expect(h.listening()).toBe(0);
        // The process would have ended; here the stop is let finish so nothing stays armed.
        s.finish();
        expect(await code).toBe(0);
      }
    } finally {
      now.mockRestore();
    }
  });

  it('resolves 1 when the stop fails, and a failed start releases the signals and rejects with its error', async () => {
    const h = recordingHost();
    const failing = untilStopped(h.host, async () => ({
      shutdownGraceMs: 100,
      stop: () => Promise.reject(new Error('disk')),
    }));
    await Promise.resolve();
    h.signal('SIGINT');
    expect(await failing).toBe(1);

    const boom = new Error('EADDRINUSE');
    await expect(untilStopped(h.host, () => Promise.reject(boom))).rejects.toBe(boom);
    expect(h.listening()).toBe(0);
  });

  it('ends the process when the stop hangs past the grace plus 10 s', async () => {
    const h = recordingHost();
    const timers: { fn: () => void; ms: number }[] = [];
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      timers.push({ fn, ms });
      return realSetTimeout(() => {}, 0);
    }) as typeof setTimeout;
    try {
      void untilStopped(h.host, async () => ({ shutdownGraceMs: 250, stop: () => new Promise(() => {}) }));
      await new Promise((r) => realSetTimeout(r, 0));
      h.signal('SIGTERM');
      await new Promise((r) => realSetTimeout(r, 0));
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    const forced = timers.find((t) => t.ms === 10_250);
    expect(forced).toBeDefined();
    expect(() => forced!.fn()).toThrow(Exited);
    expect(h.stderr.join('')).toMatch(/longer than SHUTDOWN_GRACE_MS \+ 10 s/);
  });

  it('a stop that ends clears its watchdog: a process that goes on is not ended 10 s later', async () => {
    vi.useFakeTimers();
    try {
      const h = recordingHost();
      const code = untilStopped(h.host, async () => ({ shutdownGraceMs: 100, stop: async () => {} }));
      await vi.advanceTimersByTimeAsync(0);
      h.signal('SIGTERM');
      expect(await code).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      // Had it stayed, this is where it would throw (the recording host's exit).
      await vi.advanceTimersByTimeAsync(20_000);
      expect(h.stderr.join('')).toBe('');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('failStart', () => {
  it("an operator's error is one line and exit 1; anything else is thrown", () => {
    const h = recordingHost();
    const bad = new ConfigError('PORT must be a whole number, got "x".');
    expect(isOperatorError(bad)).toBe(true);
    expect(() => failStart(bad, h.host, 'quire-relay')).toThrow(new Exited(1));
    expect(h.stderr).toEqual(['quire-relay: PORT must be a whole number, got "x".\n']);
    const bug = new TypeError('undefined is not a function');
    expect(() => failStart(bug, h.host)).toThrow(bug);
  });
});

describe('the logger (adapters/log)', () => {
  it('needs no node: module, so the Worker and every root can give it their writer', () => {
    for (const f of ['adapters/log/json-logger.ts', 'adapters/log/batched.ts'])
      expect(readFileSync(join(ROOT, f), 'utf8'), f).not.toMatch(/from\s+['"]node:|\bprocess\./);
  });

  it('writes JSON lines to the given writer, secrets redacted; warnings are urgent', () => {
    const lines: [string, boolean | undefined][] = [];
    const log = jsonLogger(
      'info',
      (l, urgent) => void lines.push([l, urgent]),
      () => 0,
    );
    log.debug('hidden', {});
    log.info('hello', { apiKey: 'quire_sk_secret', n: 1 });
    log.warn('careful', {});
    expect(lines.map(([l, u]) => [JSON.parse(l), u])).toEqual([
      [{ time: '1970-01-01T00:00:00.000Z', level: 'info', msg: 'hello', apiKey: '[redacted]', n: 1 }, false],
      [{ time: '1970-01-01T00:00:00.000Z', level: 'warn', msg: 'careful' }, true],
    ]);
  });

  it('the batched writer writes a batch at once for an urgent line, and what is left on flushSync', () => {
    const out: string[] = [];
    const sync: string[] = [];
    const w = batchedWriter({ write: (t) => void out.push(t), writeSync: (t) => void sync.push(t) });
    w.write('a\n');
    w.write('b\n', true);
    w.write('c\n');
    w.flushSync();
    expect(out).toEqual(['a\nb\n']);
    expect(sync).toEqual(['c\n']);
  });
});
