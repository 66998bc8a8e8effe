/**
 * Every live editor's credential is checked again while it is in a room: what it joined for must
 * still hold (seeing the note; writing it, when it joined to write). A share taken away, the write
 * capability lost or the credential gone sends it away (closed: revoked, 4401); the others stay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { createCore } from '../../../core/create-core.ts';
import { createLive, type LiveNotice, type LivePeer } from '../../../core/live/service.ts';
import type { Principal } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

const writer = (folders?: string[]): Principal => ({
  id: 'w',
  method: 'api-key',
  scope: { capabilities: ['notes:read', 'notes:write'], ...(folders ? { folders } : {}) },
});
const reader: Principal = { id: 'r', method: 'api-key', scope: { capabilities: ['notes:read'] } };

async function world(recheckMs = 20) {
  const base = createCore({
    store: memoryNoteStore({ files: { 'Team/a.md': 'a\n' } }),
    clock: { now: () => Date.now() },
    logger: silentLogger,
  });
  await base.load();
  const live = createLive({ notes: base.notes, author: (by) => by, recheckMs });
  stops.push(() => live.close());
  /** Joins as `p`, its credential as `now()` says from then on; what the peer is told. */
  const join = async (p: Principal, now: () => Principal | null | Promise<Principal | null>) => {
    const seen = { notices: [] as LiveNotice[], closed: null as { code: number; reason: string } | null };
    const peer: LivePeer = {
      send: () => {},
      notice: (n) => seen.notices.push(n),
      close: (code, reason) => {
        seen.closed = { code, reason };
      },
    };
    const t = await live.ticket(p, `key:${p.id}`, 'Team/a.md', async () => now());
    await live.join(t.ticket, peer);
    return seen;
  };
  return { live, join };
}

describe('live editors checked again', () => {
  it('a share taken away, the write capability lost, the credential gone: sent away; the rest stay', async () => {
    const { live, join } = await world();
    let shareOf: Principal | null = writer(['Team']);
    let writeOf: Principal | null = writer();
    let goneOf: Principal | null = reader;
    const steady = await join(reader, () => reader);
    const share = await join(writer(['Team']), () => shareOf);
    const write = await join(writer(), () => writeOf);
    const gone = await join(reader, () => goneOf);
    // A read-only editor that may still read stays when it loses nothing it joined for.
    const watcher = await join(reader, () => writer(['Team']));
    expect(live.roomOf('Team/a.md')?.size).toBe(5);

    shareOf = writer(['Elsewhere']);
    writeOf = reader;
    goneOf = null;
    await until('sent away', () => !!share.closed && !!write.closed && !!gone.closed);
    for (const s of [share, write, gone]) {
      expect(s.closed).toEqual({ code: 4401, reason: 'revoked' });
      expect(s.notices.at(-1)).toEqual({ type: 'closed', reason: 'revoked' });
    }
    expect(steady.closed).toBeNull();
    expect(watcher.closed).toBeNull();
    expect(live.roomOf('Team/a.md')?.size).toBe(2);
  });

  it('recheckNow checks at once, and a change during a round is checked by another round', async () => {
    // The periodic check an hour away: only recheckNow can send anyone away here.
    const { live, join } = await world(3_600_000);
    let first: Principal | null = reader;
    let gate: Promise<void> = Promise.resolve();
    let asked = 0;
    const early = await join(reader, () => first);
    const slow = await join(reader, async () => {
      asked++;
      await gate;
      return reader;
    });
    // A round that waits on the second editor's check, the first one already checked.
    let open = () => {};
    gate = new Promise<void>((r) => {
      open = r;
    });
    live.recheckNow();
    await until('the round at the second editor', () => asked === 1);
    first = null;
    live.recheckNow(); // during the round: it is followed by another
    open();
    await until('sent away', () => early.closed !== null);
    expect(early.closed).toEqual({ code: 4401, reason: 'revoked' });
    await until('the second round past the other editor', () => asked === 2);
    expect(slow.closed).toBeNull();
  });
});
