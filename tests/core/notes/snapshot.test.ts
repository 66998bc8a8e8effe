/**
 * The binary index snapshot: layouts read by later code (committed fixtures), damaged or
 * cut snapshots ignored with a rebuild, lazy search lists answering as eager ones, and a warm start
 * finding exactly what a cold one finds.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { analyzeNote } from '../../../core/notes/markdown/analyzer.ts';
import { createNoteService, type NoteService } from '../../../core/notes/service.ts';
import { Checksum, checksum32, SNAPSHOT_LAYOUT } from '../../../core/notes/snapshot.ts';
import { SNAPSHOT_KEY, SnapshotEntries } from '../../../core/notes/snapshot-cache.ts';
import type { StateStore } from '../../../core/ports.ts';
import { clock, fixtureFiles, fixtureNotes, fixtureStores, jsonOnlyStateStore } from './snapshot-vault.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/index-cache/${name}`, import.meta.url));

async function putBinary(state: StateStore, bytes: Uint8Array) {
  await state.putBytes!(
    SNAPSHOT_KEY,
    (async function* () {
      yield bytes;
    })(),
  );
}
async function binaryOf(state: StateStore): Promise<Uint8Array | null> {
  const size = await state.byteSize!(SNAPSHOT_KEY);
  return size === null ? null : state.getRange!(SNAPSHOT_KEY, 0, size);
}

/** Everything a client sees of the index: every summary (links, backlinks, tags), the tree, tags. */
function picture(s: NoteService) {
  return JSON.stringify({ items: s.list().items, tree: s.tree(''), tags: s.tags() });
}

const QUERIES = ['comet3', 'nebula', 'w12', 'alias 7', 'über', 'note', 'seven', 'part', 't2', 'comt', 'neb'];
async function answers(s: NoteService, queries = QUERIES) {
  const out: unknown[] = [];
  for (const q of queries) out.push(await s.search(q, 20));
  return JSON.stringify(out);
}

async function coldOf(notes = fixtureNotes(), files = fixtureFiles()) {
  const s = createNoteService({ ...fixtureStores(notes, files), clock });
  await s.load();
  return s;
}

describe('the binary index snapshot', () => {
  it('sums a section the same in pieces of any cut, and any one changed byte changes the sum (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (bytes, cuts, at, xor) => {
          const whole = checksum32(bytes);
          const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
          const sum = new Checksum();
          let from = 0;
          for (const p of [...points, bytes.length]) {
            sum.update(bytes.subarray(from, p));
            from = p;
          }
          expect(sum.digest()).toBe(whole);
          const changed = bytes.slice();
          changed[at % bytes.length]! ^= xor;
          expect(checksum32(changed)).not.toBe(whole);
          expect(checksum32(bytes.subarray(0, bytes.length - 1))).not.toBe(whole);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('ignores a JSON cache where the binary snapshot is kept (no release wrote one there): the vault is parsed', async () => {
    const state = memoryStateStore();
    await state.put('index-cache.json', fixture('layout5.json').toString('utf8'));
    let parsed = 0;
    const stores = fixtureStores();
    const s = createNoteService({
      ...stores,
      state,
      clock,
      analyze: async (texts) => {
        parsed += texts.length;
        return texts.map((t) => analyzeNote(t));
      },
    });
    await s.load();
    expect(parsed).toBe(s.status().notes);
    const cold = await coldOf();
    expect(picture(s)).toBe(picture(cold));
    expect(await answers(s)).toBe(await answers(cold));
  });

  it('reads the committed binary snapshot of layout 1 without parsing a note', async () => {
    expect(SNAPSHOT_LAYOUT).toBe(1);
    const state = memoryStateStore();
    await putBinary(state, fixture('snapshot-v1.bin'));
    let parsed = 0;
    const s = createNoteService({
      ...fixtureStores(),
      state,
      clock,
      analyze: async (texts) => {
        parsed += texts.length;
        return [];
      },
    });
    await s.load();
    expect(parsed).toBe(0);
    const cold = await coldOf();
    expect(picture(s)).toBe(picture(cold));
    expect(await answers(s)).toBe(await answers(cold));
  });

  it('keeps the JSON cache on a store without byte ranges (Workers KV)', async () => {
    const state = jsonOnlyStateStore();
    const s = createNoteService({ ...fixtureStores(), state, clock });
    await s.load();
    await s.saveCache();
    expect(await state.get('index-cache.json')).toMatch(/^\{"v":5,/);
    const again = createNoteService({ ...fixtureStores(), state, clock });
    await again.load();
    expect(picture(again)).toBe(picture(s));
  });

  it('ignores a snapshot of another layout, or a damaged or cut one, with a rebuild, never a crash (property)', async () => {
    const good = new Uint8Array(fixture('snapshot-v1.bin'));
    const cold = await coldOf();
    const coldPicture = picture(cold);
    const coldAnswers = await answers(cold, QUERIES.slice(0, 4));
    const damage = fc.oneof(
      fc.record({
        kind: fc.constant('flip' as const),
        at: fc.array(fc.nat({ max: good.length - 1 }), { minLength: 1, maxLength: 4 }),
        xor: fc.integer({ min: 1, max: 255 }),
      }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat({ max: good.length - 1 }) }),
      fc.record({ kind: fc.constant('layout' as const), layout: fc.integer({ min: 2, max: 1000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(damage, async (d) => {
        const bytes = good.slice();
        let stored: Uint8Array = bytes;
        if (d.kind === 'flip') for (const at of d.at) bytes[at]! ^= d.xor;
        else if (d.kind === 'cut') stored = bytes.subarray(0, d.at);
        else new DataView(bytes.buffer).setUint32(8, d.layout, true);
        const state = memoryStateStore();
        await putBinary(state, stored);
        const s = createNoteService({ ...fixtureStores(), state, clock });
        await s.load();
        // Search first (a damaged list is found when first read), then what the list shows.
        expect(await answers(s, QUERIES.slice(0, 4))).toBe(coldAnswers);
        expect(picture(s)).toBe(coldPicture);
        // Saving still works, and what it saved reads back whole.
        await s.saveCache();
        const again = createNoteService({ ...fixtureStores(), state, clock });
        await again.load();
        expect(picture(again)).toBe(coldPicture);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('a warm start finds exactly the notes, links, backlinks, tags and folders of a cold one, after changes too', async () => {
    const state = memoryStateStore();
    const notes = fixtureNotes();
    const attachments = fixtureFiles();
    const first = createNoteService({ ...fixtureStores(notes, attachments), state, clock });
    await first.load();
    await first.saveCache();
    // Unchanged vault: the snapshot's link resolutions are taken as they are.
    const warm = createNoteService({ ...fixtureStores(notes, attachments), state, clock });
    await warm.load();
    const cold0 = await coldOf(notes, attachments);
    expect(picture(warm)).toBe(picture(cold0));
    expect(await answers(warm)).toBe(await answers(cold0));
    // A journal (a write since the snapshot), then files changed while the server was down: a
    // note added that takes over a dangling link, one removed, one changed, an attachment gone.
    await warm.create('missing 1.md', 'now here [[note 3]]');
    await warm.saveCache();
    const changed: Record<string, string> = {
      ...notes,
      'missing 1.md': 'now here [[note 3]]',
      'missing 2.md': 'new [[note 5]]',
    };
    delete changed['note 0.md'];
    changed['area 1/sub/note 1.md'] = 'rewritten [[note 9]] [[pic 2.png]]';
    const lessFiles: Record<string, string> = { ...attachments };
    delete lessFiles['img/pic 1.png'];
    const after = createNoteService({ ...fixtureStores(changed, lessFiles), state, clock });
    await after.load();
    const cold = await coldOf(changed, lessFiles);
    expect(picture(after)).toBe(picture(cold));
    // Which notes a search finds (scores may differ: a warm index counts removed notes' postings
    // in a word's frequency until its next sweep, as it always did).
    for (const q of ['comet3', 'w12', 'alias 7', 'rewritten', 'now here', 'new']) {
      const found = async (s: NoteService) => (await s.search(q, 100)).map((h) => h.path).sort();
      expect(await found(after), q).toEqual(await found(cold));
    }
  });
});

describe('lazy search lists', () => {
  const word = fc.constantFrom(
    'alpha',
    'beta',
    'gamma',
    'delta',
    'comet',
    'nebula',
    'quasar',
    'orbit',
    'lunar',
    'solar',
  );
  const note = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
  const vault = fc.dictionary(
    fc
      .tuple(fc.constantFrom('', 'a/', 'b/c/'), fc.integer({ min: 0, max: 60 }))
      .map(([f, i]) => `${f}n${i}.md`),
    note,
    { minKeys: 1, maxKeys: 40 },
  );
  const query = fc.oneof(
    word,
    fc.tuple(word, word).map(([a, b]) => `${a} ${b}`),
    word.map((w) => w.slice(0, 3)),
    word.map((w) => `${w.slice(0, 2)}x${w.slice(3)}`),
    fc.tuple(word, word).map(([a, b]) => `${a} -${b}`),
    fc.tuple(word, word).map(([a, b]) => `"${a} ${b}"`),
  );
  const edit = fc.tuple(fc.integer({ min: 0, max: 60 }), note);

  it('answer every query as eager lists do, with writes before the first search (differential, property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        vault,
        fc.array(edit, { maxLength: 5 }),
        fc.array(query, { minLength: 5, maxLength: 25 }),
        async (files, edits, queries) => {
          const state = memoryStateStore();
          const writer = createNoteService({ store: memoryNoteStore({ clock, files }), state, clock });
          await writer.load();
          await writer.saveCache();
          // Lazy: a warm start on the binary snapshot; eager: a cold index of the same vault.
          const storeA = memoryNoteStore({ clock, files });
          const lazy = createNoteService({ store: storeA, state, clock });
          await lazy.load();
          const eager = createNoteService({ store: memoryNoteStore({ clock, files }), clock });
          await eager.load();
          for (const [i, text] of edits) {
            const path = `n${i}.md`;
            for (const s of [lazy, eager]) {
              if (s.list().items.some((n) => n.path === path)) await s.update(path, { content: text });
              else await s.create(path, text);
            }
          }
          for (const q of queries) {
            const a = (await lazy.search(q, 50)).map((h) => [h.path, h.score]);
            const b = (await eager.search(q, 50)).map((h) => [h.path, h.score]);
            expect(a, q).toEqual(b);
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('are not read by a warm start; the first search reads them', async () => {
    const state = memoryStateStore();
    const s1 = createNoteService({ ...fixtureStores(), state, clock });
    await s1.load();
    await s1.saveCache();
    const ranges: number[] = [];
    const watched: StateStore = {
      ...state,
      getRange: async (key, offset, length) => {
        ranges.push(length);
        return state.getRange!(key, offset, length);
      },
    };
    const s2 = createNoteService({ ...fixtureStores(), state: watched, clock });
    await s2.load();
    s2.list();
    const size = (await state.byteSize!(SNAPSHOT_KEY))!;
    const readAtStart = ranges.reduce((a, b) => a + b, 0);
    expect(readAtStart).toBeLessThan(size);
    await s2.search('comet3');
    expect(ranges.reduce((a, b) => a + b, 0)).toBeGreaterThan(readAtStart);
  });

  it('found damaged at the first search: the vault is indexed again and the search answers', async () => {
    const state = memoryStateStore();
    const s1 = createNoteService({ ...fixtureStores(), state, clock });
    await s1.load();
    await s1.saveCache();
    const bytes = (await binaryOf(state))!.slice();
    // The last byte of the postings (the section just before the table).
    const tableAt = new DataView(bytes.buffer).getFloat64(bytes.length - 16, true);
    bytes[tableAt - 1]! ^= 0x55;
    await putBinary(state, bytes);
    const s2 = createNoteService({ ...fixtureStores(), state, clock });
    await s2.load();
    expect(await answers(s2)).toBe(await answers(await coldOf()));
  });
});

describe("the snapshot's entries, parsed only when kept", () => {
  const row = (json: string) => new TextEncoder().encode(json);
  const good = JSON.stringify(['abc', null, ['t'], [], 3, null, [], {}, 0]);
  const table = (rest: string) => {
    const bytes = row(rest);
    return {
      n: 1,
      paths: ['a.md'],
      size: new Float64Array([10]),
      mtime: new Float64Array([5]),
      firstSeen: new Float64Array([1]),
      rest: bytes,
      at: new Uint32Array([0, bytes.length]),
    };
  };

  it('compares size and mtime before parsing, and gives a row that does not parse as not kept', () => {
    const entries = new SnapshotEntries(table(good));
    expect(entries.kept('a.md', 11, 5)).toBeUndefined();
    expect(entries.kept('a.md', 10, 6)).toBeUndefined();
    expect(entries.rowOf.size).toBe(0);
    expect(entries.firstSeen('a.md')).toBe(1);
    expect(entries.kept('a.md', 10, 5)?.checksum).toBe('abc');
    expect(entries.rowOf.size).toBe(1);
    const damaged = new SnapshotEntries(table('[not json'));
    expect(damaged.kept('a.md', 10, 5)).toBeUndefined();
    expect(damaged.has('a.md')).toBe(true);
    expect(damaged.firstSeen('a.md')).toBe(1);
  });
});
