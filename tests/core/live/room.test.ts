import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryHistoryStore } from '../../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { LiveClient } from '../../../client-link/src/flow/live-client.ts';
import { createCore } from '../../../core/create-core.ts';
import { authorOf, noKeyNames } from '../../../core/history/author.ts';
import { createLive, type LivePeer } from '../../../core/live/service.ts';
import { applyEdits, textEdits } from '../../../core/live/text-edits.ts';
import { mergeTexts } from '../../../core/live/y-text.ts';
import type { Principal } from '../../../core/ports.ts';
import { silentLogger } from '../../helpers/logger.ts';
import { until } from '../../helpers/wait.ts';

const owner: Principal = { id: 'k1', method: 'api-key' };
const reader: Principal = { id: 'k2', method: 'api-key', scope: { capabilities: ['notes:read'] } };
const elsewhere: Principal = {
  id: 'k3',
  method: 'api-key',
  scope: { capabilities: ['notes:read', 'notes:write'], folders: ['Other'] },
};

let cores: { live: { close(): Promise<void> } }[] = [];
afterEach(async () => {
  for (const c of cores) await c.live.close();
  cores = [];
});

async function setup(files: Record<string, string>, debounceMs = 150) {
  const store = memoryNoteStore({ files });
  const base = createCore({
    store,
    clock: { now: () => Date.now() },
    logger: silentLogger,
    history: memoryHistoryStore(),
  });
  await base.load();
  const live = createLive({
    notes: base.notes,
    author: (by) => authorOf(by, noKeyNames),
    debounceMs,
    maxTickets: 8,
  });
  const core = { ...base, live };
  cores.push(core);
  const file = async (p: string) => new TextDecoder().decode((await store.read(p))!);
  /** A client joined in process: the room's messages go straight into it, and back. */
  const join = async (p: Principal, path: string, by = `key:${p.id}`) => {
    const t = await core.live.ticket(p, by, path);
    let session: { receive(d: Uint8Array): void; leave(): Promise<void> } | undefined;
    const early: Uint8Array[] = [];
    const client = new LiveClient((d) => (session ? session.receive(d) : early.push(d)));
    const peer: LivePeer = {
      send: (d) => client.receive(d),
      notice: (n) => client.receive(JSON.stringify(n)),
      close: () => {},
    };
    session = await core.live.join(t.ticket, peer);
    for (const d of early) session.receive(d);
    client.start();
    await until('synced', () => client.synced);
    return { client, session, ticket: t };
  };
  return { core, store, file, join };
}

describe('text edits: the smallest change', () => {
  it('turn any text into any other, never splitting a surrogate pair', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n', ' ', '😀', 'é') });
    fc.assert(
      fc.property(text, text, (a, b) => {
        const edits = textEdits(a, b);
        expect(applyEdits(a, edits)).toBe(b);
        for (const e of edits)
          expect(a.charCodeAt(e.at) >= 0xdc00 && a.charCodeAt(e.at) <= 0xdfff).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('change one word of a long note as one small edit', () => {
    const a = `# Title\n\n${'A line of the note.\n'.repeat(200)}The end of it.\n`;
    const b = a.replace('The end of it', 'The very end of it');
    expect(textEdits(a, b)).toEqual([{ at: a.indexOf('end of it'), del: 0, ins: 'very ' }]);
  });

  it('merges both sides the way two editors would', () => {
    expect(mergeTexts('one two three', 'one TWO two three', 'one two three four')).toBe(
      'one TWO two three four',
    );
  });

  it('keeps every inserted word whole when two sides insert and delete words at once', () => {
    // Found by the live property: a replacement trimmed to "b" → "o" inside "b0" lost the "0" of
    // "o0" when the other side deleted "b0". Edits now hold whole words.
    const marker = (w: string) => new RegExp(`(?<![a-z])${w}(?![0-9])`, 'g');
    const ins = (text: string, at: number, word: string) => {
      const starts = [0, ...[...text.matchAll(/ /g)].map((m) => m.index! + 1)];
      const i = starts[Math.floor(at * starts.length)]!;
      return `${text.slice(0, i)}${word} ${text.slice(i)}`;
    };
    const edit = fc.array(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 0.999, noNaN: true })), {
      maxLength: 5,
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), edit, edit, (n, oo, tt) => {
        const base = Array.from({ length: n }, (_, i) => `b${i} `).join('');
        const gone = new Set<string>();
        const added: string[] = [];
        const side = (ops: [boolean, number][], tag: string) => {
          let text = base;
          for (const [d, at] of ops) {
            const words = [...text.matchAll(/b\d+ /g)];
            if (d && words.length) {
              const m = words[Math.floor(at * words.length)]!;
              gone.add(m[0].trim());
              text = text.slice(0, m.index!) + text.slice(m.index! + m[0].length);
            } else if (!d) {
              const w = `${tag}${added.length}`;
              added.push(w);
              text = ins(text, at, w);
            }
          }
          return text;
        };
        const o = side(oo, 'o');
        const t = side(tt, 't');
        const m = mergeTexts(base, o, t);
        const why = JSON.stringify({ base, o, t, m });
        for (const w of added) expect(m.match(marker(w))?.length, `${w} in ${why}`).toBe(1);
        for (let i = 0; i < n; i++)
          expect(m.match(marker(`b${i}`))?.length ?? 0, why).toBe(gone.has(`b${i}`) ? 0 : 1);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a live room', () => {
  it('two editors converge and the file follows within the debounce, credited to both', async () => {
    const { core, file, join } = await setup({ 'n.md': 'hello world\n' });
    const a = await join(owner, 'n.md', 'key:alice');
    const b = await join(owner, 'n.md', 'key:bob');
    expect(a.client.text.toString()).toBe('hello world\n');
    a.client.text.insert(5, ' there');
    b.client.text.insert(b.client.text.length, 'more\n');
    await until(
      'converged',
      () => a.client.text.toString() === b.client.text.toString() && a.client.text.length > 18,
    );
    const expected = 'hello there world\nmore\n';
    expect(a.client.text.toString()).toBe(expected);
    await until('file written', async () => (await file('n.md')) === expected, 2500);
    await until(
      'acked',
      () => a.client.acked >= a.client.sent && b.client.acked >= b.client.sent,
      3000,
    ).catch((e) => {
      throw new Error(
        `${e} ${a.client.acked}/${a.client.sent} ${b.client.acked}/${b.client.sent} ${JSON.stringify(a.client.notices)}`,
      );
    });
    const versions = core.notes.history!.list('n.md');
    expect(versions[0]!.by).toBe('live:key:alice|key:bob');
  });

  it('takes an outside write as a minimal change: a remote cursor and typing not yet saved stay', async () => {
    const { core, file, join } = await setup({ 'n.md': 'alpha\nbeta\ngamma\n' }, 1500);
    const a = await join(owner, 'n.md');
    const b = await join(owner, 'n.md');
    // b's cursor after "gam", kept as a relative position (what y-codemirror keeps).
    const { createRelativePositionFromTypeIndex, createAbsolutePositionFromRelativePosition } = await import(
      'yjs'
    );
    const cursor = createRelativePositionFromTypeIndex(b.client.text, 'alpha\nbeta\ngam'.length);
    a.client.text.insert(0, 'typed ');
    await until('b sees a', () => b.client.text.toString().startsWith('typed '));
    // The REST write comes in before the room wrote a's typing (debounce 1.5 s).
    await core.notes.update('n.md', { content: 'alpha\nBETA\ngamma\n' });
    await until('outside change in', () => b.client.text.toString() === 'typed alpha\nBETA\ngamma\n');
    expect(a.client.text.toString()).toBe('typed alpha\nBETA\ngamma\n');
    const abs = createAbsolutePositionFromRelativePosition(cursor, b.client.doc)!;
    expect(abs.index).toBe('typed alpha\nBETA\ngam'.length);
    await until('file has both', async () => (await file('n.md')) === 'typed alpha\nBETA\ngamma\n', 4000);
  });

  it('a read-only key watches, its changes are refused; a key that cannot see the folder cannot join', async () => {
    const { file, join, core } = await setup({ 'n.md': 'text\n' });
    const w = await join(owner, 'n.md');
    const r = await join(reader, 'n.md');
    expect(r.ticket.readOnly).toBe(true);
    expect(r.client.readOnly).toBe(true);
    r.client.text.insert(0, 'nope ');
    await until('refused', () => r.client.notices.some((n) => n.type === 'refused'));
    w.client.text.insert(4, '!');
    await until('reader sees writer', () => r.client.text.toString().includes('text!'));
    await until('file', async () => (await file('n.md')) === 'text!\n', 2500);
    expect(w.client.text.toString()).toBe('text!\n');
    await expect(core.live.ticket(elsewhere, 'key:k3', 'n.md')).rejects.toMatchObject({
      code: 'NOTE_NOT_FOUND',
    });
    // Tickets never used are bounded (here 8; the ones spent by joining do not count).
    const asked = await Promise.allSettled(
      Array.from({ length: 9 }, () => core.live.ticket(owner, 'key:k1', 'n.md')),
    );
    expect(
      asked.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code),
    ).toContain('RATE_LIMITED');
    await expect(core.live.join('made-up', { send() {}, notice() {}, close() {} })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('follows a move (written at the new path) and closes on a delete; the others see one leave', async () => {
    const { core, file, join } = await setup({ 'd/n.md': 'note\n' }, 2000);
    const closed: string[] = [];
    const a = await join(owner, 'd/n.md');
    const b = await join(owner, 'd/n.md');
    a.client.setUser({ name: 'a', color: '#000' });
    await until('b sees a', () =>
      [...b.client.awareness.getStates().values()].some((s) => s.user?.name === 'a'),
    );
    await a.session.leave();
    await until(
      'a gone for b',
      () => ![...b.client.awareness.getStates().values()].some((s) => s.user?.name === 'a'),
    );
    b.client.onNotice = (n) => n.type === 'closed' && closed.push(`${n.reason}:${n.to ?? ''}`);
    b.client.text.insert(0, 'moving ');
    await until('in room', () => core.live.roomOf('d/n.md')?.text.toString() === 'moving note\n');
    await core.notes.move('d/n.md', 'e/n.md');
    await until('closed', () => closed.length === 1);
    expect(closed).toEqual(['moved:e/n.md']);
    expect(await file('e/n.md')).toBe('moving note\n');
    const c = await join(owner, 'e/n.md');
    const gone: string[] = [];
    c.client.onNotice = (n) => n.type === 'closed' && gone.push(n.reason);
    await core.notes.remove('e/n.md');
    await until('closed on delete', () => gone.length === 1);
    expect(gone).toEqual(['deleted']);
    expect(core.live.stats()).toEqual({ rooms: 0, editors: 0 });
  });

  it('writes on the last editor leaving and on close; a ticket is single use', async () => {
    const { core, file, join } = await setup({ 'n.md': 'x\n' }, 2000);
    const a = await join(owner, 'n.md');
    a.client.text.insert(0, 'leaving ');
    await until('in room', () => core.live.roomOf('n.md')?.text.toString() === 'leaving x\n');
    await a.session.leave();
    expect(await file('n.md')).toBe('leaving x\n');
    await expect(
      core.live.join(a.ticket.ticket, { send() {}, notice() {}, close() {} }),
    ).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const b = await join(owner, 'n.md');
    b.client.text.insert(0, 'stopping ');
    await until('in room', () => core.live.roomOf('n.md')?.text.toString() === 'stopping leaving x\n');
    await core.live.close();
    expect(await file('n.md')).toBe('stopping leaving x\n');
  });
});
