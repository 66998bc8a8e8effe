/**
 * The live sessions over requests (adapters/http/live-poll.ts) with a clock of the test's own:
 * an idle session is left and its editor gone from the room; a session too far behind ends with
 * 1009; a newer poll answers an older one empty; the framing refuses torn runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { livePoll, POLL_LIMITS } from '../../../adapters/http/live-poll.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { createCore } from '../../../core/create-core.ts';
import {
  decodeFrames,
  decodeMessages,
  encodeFrames,
  encodeMessages,
  FRAME_CLOSED,
} from '../../../core/live/poll-wire.ts';
import { createLive } from '../../../core/live/service.ts';
import type { Principal } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const owner: Principal = { id: 'k1', method: 'api-key' };
const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function world(limits: Partial<typeof POLL_LIMITS> = {}) {
  const base = createCore({
    store: memoryNoteStore({ files: { 'a.md': 'hello\n' } }),
    clock: { now: () => Date.now() },
    logger: silentLogger,
  });
  await base.load();
  const live = createLive({ notes: base.notes, author: (by) => by, debounceMs: 50 });
  let t = 1_000_000;
  const poll = livePoll(live, { ...POLL_LIMITS, ...limits }, () => t);
  stops.push(
    () => poll.close(),
    () => live.close(),
  );
  const open = async (by = 'key:k1') => poll.open((await live.ticket(owner, by, 'a.md')).ticket, by);
  return { live, poll, open, notes: base.notes, advance: (ms: number) => (t += ms) };
}

const last = (body: Uint8Array) => decodeFrames(body)!.at(-1)!;

describe('live sessions over requests', () => {
  it('an idle session is left: its editor is gone from the room, its id unknown', async () => {
    const w = await world({ idleMs: 1000 });
    const id = await w.open();
    expect(w.live.roomOf('a.md')?.size).toBe(1);
    expect(w.poll.stats().sessions).toBe(1);
    w.advance(1500);
    // The sweep runs every quarter of the idle time (at least each second, on the real clock).
    await until('swept', () => w.poll.stats().sessions === 0, 5000);
    await until('left the room', () => (w.live.roomOf('a.md')?.size ?? 0) === 0);
    await expect(w.poll.poll(id, 'key:k1', 0)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a session too far behind ends with 1009, said in its last frame', async () => {
    const w = await world({ maxQueuedBytes: 400 });
    const id = await w.open();
    // Nobody polls while the file takes a change larger than the mailbox may hold.
    await w.notes.update('a.md', { content: `${'x'.repeat(1000)}\n` });
    await until('ended', () => w.poll.stats().sessions === 1 && (w.live.roomOf('a.md')?.size ?? 0) === 0);
    const end = last(await w.poll.poll(id, 'key:k1', 0));
    expect(end.kind).toBe(FRAME_CLOSED);
    expect(JSON.parse(new TextDecoder().decode(end.bytes))).toEqual({ code: 1009, reason: 'too far behind' });
    // The last frame taken, the session is forgotten.
    await expect(w.poll.poll(id, 'key:k1', end.seq)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a newer poll answers the older one empty; an answer lost comes again', async () => {
    const w = await world();
    const id = await w.open();
    const first = decodeFrames(await w.poll.poll(id, 'key:k1', 0))!;
    expect(first.length).toBeGreaterThan(1);
    const seq = first.at(-1)!.seq;
    const older = w.poll.poll(id, 'key:k1', seq);
    const newer = w.poll.poll(id, 'key:k1', seq);
    expect((await older).length).toBe(0);
    w.poll.leave(id, 'key:k1');
    expect(last(await newer).kind).toBe(FRAME_CLOSED);
    // Another actor never reaches a session.
    const mine = await w.open();
    expect(() => w.poll.send(mine, 'key:someone-else', [])).toThrow(/No such live session/);
  });

  it('the framing round-trips and refuses torn runs', () => {
    const msgs = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array([9])];
    expect(decodeMessages(encodeMessages(msgs))).toEqual(msgs);
    const run = encodeMessages(msgs);
    expect(decodeMessages(run.subarray(0, run.length - 1))).toBeNull();
    const frames = [
      { kind: 0 as const, seq: 1, bytes: new Uint8Array([5]) },
      { kind: 2 as const, seq: 2, bytes: new Uint8Array([6, 7]) },
    ];
    expect(decodeFrames(encodeFrames(frames))).toEqual(frames);
    const bad = encodeFrames(frames);
    bad[0] = 7; // no such kind
    expect(decodeFrames(bad)).toBeNull();
  });
});
