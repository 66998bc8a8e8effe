import { describe, expect, it } from 'vitest';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { LiveClient } from '../../../client-link/src/flow/live-client.ts';
import { carryOver } from '../../../client-link/src/flow/live-socket.ts';
import { createCore } from '../../../core/create-core.ts';
import { createLive, type Live, type LivePeer } from '../../../core/live/service.ts';
import type { Principal } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const owner: Principal = { id: 'k1', method: 'api-key' };

/** A client in process; `notices: false` drops the server's notices (an answer lost in a drop). */
async function join(live: Live, path: string, notices = true) {
  const t = await live.ticket(owner, 'key:k1', path);
  const early: Uint8Array[] = [];
  let session: { receive(d: Uint8Array): void } | undefined;
  const client = new LiveClient((d) => (session ? session.receive(d) : early.push(d)));
  const peer: LivePeer = {
    send: (d) => client.receive(d),
    notice: (n) => (notices || n.type === 'hello' ? client.receive(JSON.stringify(n)) : undefined),
    close: () => {},
  };
  session = await live.join(t.ticket, peer);
  for (const d of early) session.receive(d);
  client.start();
  await until('synced', () => client.synced);
  return client;
}

async function server(files: Record<string, string>) {
  const store = memoryNoteStore({ files });
  const core = createCore({
    store,
    clock: { now: () => Date.now() },
    logger: silentLogger,
    history: memoryHistoryStore(),
  });
  await core.load();
  const live = () => createLive({ notes: core.notes, author: (b) => b, debounceMs: 2000, maxWaitMs: 60_000 });
  const file = async (p: string) => new TextDecoder().decode((await store.read(p))!);
  return { core, live, file };
}

describe('a live editor reconnecting', () => {
  it('carries typing the server lost (a kill) into the new session, once', async () => {
    const { live, file } = await server({ 'n.md': 'one\ntwo\n' });
    const first = live();
    const a = await join(first, 'n.md');
    a.text.insert(a.text.length, 'typed before the kill\n');
    expect(a.unsaved).toBe(true);
    // The server dies: its room is gone unwritten. Meanwhile someone else changed the file.
    const second = live();
    const b = await join(second, 'n.md');
    b.text.insert(0, 'zero\n');
    const again = await join(second, 'n.md');
    expect(again.text.toString()).toBe('zero\none\ntwo\n');
    expect(carryOver(a, again)).toEqual({ carried: true, overlaps: 0 });
    await second.close();
    expect(await file('n.md')).toBe('zero\none\ntwo\ntyped before the kill\n');
    await first.close();
  });

  it('does not double typing the server wrote when its acknowledgement was lost', async () => {
    const { live, file } = await server({ 'n.md': 'one\n' });
    const first = live();
    const a = await join(first, 'n.md', false);
    a.text.insert(0, 'written ');
    await first.close();
    expect(await file('n.md')).toBe('written one\n');
    expect(a.unsaved).toBe(true);
    const second = live();
    const again = await join(second, 'n.md');
    expect(carryOver(a, again)).toEqual({ carried: false, overlaps: 0 });
    expect(again.text.toString()).toBe('written one\n');
    await second.close();
  });
});
