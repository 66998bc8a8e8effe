import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveServer } from '../helpers/live-server.ts';

const LINKS = 200_000;

/**
 * A move of a note linked 200,000 times from one note, with `updateLinks`, on the real
 * Node server. It used to rebuild the text once per link (six minutes, server frozen). Bounds here
 * are generous (the machine is shared); the tight figures are in BENCHMARKS.md.
 */
describe('moving a note linked 200,000 times from one note', () => {
  let server: Awaited<ReturnType<typeof liveServer>>;
  let headers: Record<string, string>;

  beforeAll(async () => {
    server = await liveServer({ PAIRING_MODE: 'open-port' });
    headers = { 'x-service-key': server.firstKey, 'content-type': 'application/json' };
  }, 60_000);
  afterAll(() => server?.stop());

  it('finishes, rewrites every link, and health keeps answering meanwhile', async () => {
    const post = (path: string, content: string) =>
      fetch(`${server.url}/api/v1/notes`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ path, content }),
      });
    expect((await post('target.md', '# Target')).status).toBe(201);
    const body = Array.from({ length: LINKS }, (_, i) => (i % 3 ? '[[target]]' : '[[target|t]]')).join(' ');
    expect((await post('hub.md', body)).status).toBe(201);

    let moving = true;
    const healthMs: number[] = [];
    const poll = (async () => {
      while (moving) {
        const t = performance.now();
        const res = await fetch(`${server.url}/api/v1/health`);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        healthMs.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    // The server runs in this process: its event loop is this loop (a move must never stall it for
    // long). On a shared machine a timer can be late because the process got no CPU; a stall counts
    // only the CPU the process used meanwhile (all its threads: an over-estimate of the loop's own
    // work).
    const eld = monitorEventLoopDelay({ resolution: 5 });
    eld.enable();
    let stalledMs = 0;
    let tick = performance.now();
    let cpu = process.cpuUsage();
    const ticker = setInterval(() => {
      const now = performance.now();
      const c = process.cpuUsage();
      const cpuMs = (c.user + c.system - cpu.user - cpu.system) / 1000;
      stalledMs = Math.max(stalledMs, Math.min(now - tick, cpuMs));
      tick = now;
      cpu = c;
    }, 5);
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/notes/target.md/move`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path: 'archive/moved.md', updateLinks: true }),
    });
    const moveMs = performance.now() - started;
    // Work after the answer (the change feed, the index save) counts too: keep polling a second.
    await new Promise((r) => setTimeout(r, 1_000));
    moving = false;
    await poll;
    clearInterval(ticker);
    eld.disable();
    const loopMaxMs = eld.max / 1e6;
    if (process.env.QUIRE_TEST_VERBOSE)
      console.log({
        moveMs,
        healthMaxMs: Math.max(...healthMs),
        answers: healthMs.length,
        loopMaxMs,
        stalledMs,
      });
    const json = (await res.json()) as { data: { rewritten: string[] } };
    expect(res.status).toBe(200);
    expect(json.data.rewritten).toEqual(['hub.md']);
    expect(moveMs).toBeLessThan(30_000);
    // Health answered throughout: many times during the move, never held for a second (target
    // 100 ms, held on a quiet machine by the bench; a generous bound here for a shared machine).
    expect(healthMs.length).toBeGreaterThanOrEqual(20);
    expect(Math.max(...healthMs)).toBeLessThan(1_000);
    // The loop never stalls long (target 100 ms; a generous bound here for a shared machine, the tight one measured
    // in bench/results/2026-11-26-quiet-run-1852.md).
    expect(stalledMs).toBeLessThan(1_000);

    const hub = (await (await fetch(`${server.url}/api/v1/notes/hub.md`, { headers })).json()) as {
      data: { content: string; links: { target: string; path: string }[] };
    };
    expect(hub.data.content.match(/\[\[moved(\|t)?\]\]/g)).toHaveLength(LINKS);
    expect(hub.data.content).not.toContain('[[target');
    expect(hub.data.links).toEqual([
      { target: 'moved', path: 'archive/moved.md', kind: 'wikilink', type: 'note', alias: 't' },
    ]);
    // The rewritten note's words reached search (indexed in steps, after the graph).
    const found = (await (await fetch(`${server.url}/api/v1/search?q=moved`, { headers })).json()) as {
      data: { path: string }[];
    };
    expect(found.data.map((h) => h.path)).toContain('hub.md');
  }, 120_000);
});
