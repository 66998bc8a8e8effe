import { afterAll, describe, expect, it } from 'vitest';
import { killAll } from './scenarios/procs.ts';
import { runSeed } from './scenarios/rng.ts';
import { gracefulShutdown } from './scenarios/shutdown.ts';

afterAll(killAll);

describe('graceful shutdown under load', () => {
  it('SIGTERM finishes what is in flight, refuses the rest, exits in time, and the relay says 503 at once', async () => {
    const seed = runSeed(20261125);
    console.log(`shutdown test: seed ${seed}`);
    const r = await gracefulShutdown({ seed, answerTimeoutMs: 20_000, exitBoundMs: 10_000 });
    console.log(
      JSON.stringify({ exitMs: Math.round(r.exitMs), outcomes: r.outcomes, afterExit: r.afterExit }),
    );
    expect(r.violations).toEqual([]);
    expect(r.exitCode).toBe(0);
    // Requests that were in flight at the SIGTERM were answered (and are on disk).
    expect(r.finishedAcross).toBeGreaterThan(0);
    // New ones were refused on both doors, not left to time out.
    const refused = (prefix: string) =>
      Object.entries(r.outcomes)
        .filter(([k]) => k.startsWith(prefix) && !k.endsWith(' 201'))
        .reduce((n, [, v]) => n + v, 0);
    expect(refused('direct')).toBeGreaterThan(0);
    expect(r.outcomes['relay 503 SERVER_OFFLINE']).toBeGreaterThan(0);
    expect(r.afterExit).toMatchObject({ status: 503, code: 'SERVER_OFFLINE' });
    expect(r.afterExit.ms).toBeLessThan(2_000);
    expect(r.slowestRelayedAfterMs).toBeLessThan(10_000);
  }, 90_000);
});
