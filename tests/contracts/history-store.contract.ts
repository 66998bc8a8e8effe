import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { HistoryStore } from '../../core/ports.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/** A fresh, empty history for one case; `reopen` gives a second store over the same backing. */
export interface HistoryStoreFixture {
  store: HistoryStore;
  /** A new store over the same data, as after a restart (absent: nothing outlives the object). */
  reopen?: () => Promise<HistoryStore>;
  cleanup(): Promise<void>;
}

export interface HistoryStoreContractOptions {
  create: () => Promise<HistoryStoreFixture>;
  skip?: DeclaredSkip[];
}

/** Every case title of the suite, for declaring skips without typos. */
export const HISTORY_STORE_CASES = {
  blobs: 'appendBlob answers consecutive offsets; readBlob reads any range, across blobs, null past the end',
  journal: 'journal appends read back whole and in order, non-ASCII included',
  size: 'size is the pack bytes plus the journal bytes',
  replace: 'replace swaps pack and journal together; the old pack stays readable while pieces are made',
  replaceFails:
    'a replace that fails midway (in the pieces or the journal) leaves the old pair, readable, appendable and after a restart',
  reopen: 'a new store over the same backing reads what the old one wrote and appends after it',
} as const;

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);
const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

async function appendAll(store: HistoryStore, blobs: string[]) {
  const at: number[] = [];
  for (const b of blobs) {
    at.push(await store.appendBlob(bytes(b)));
    await store.syncBlobs?.();
  }
  return at;
}

/**
 * The guarantees of the HistoryStore port (`core/ports.ts`), run against every adapter. Each case
 * gets a fresh, empty store from `create` and disposes of it afterwards.
 */
export function runHistoryStoreContract(name: string, opts: HistoryStoreContractOptions): void {
  const C = HISTORY_STORE_CASES;
  describe(`HistoryStore contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(opts.skip);
    let fx: HistoryStoreFixture;
    let store: HistoryStore;
    beforeEach(async () => {
      fx = await opts.create();
      store = fx.store;
    });
    afterEach(async () => {
      await fx?.cleanup();
    });
    const reopen = async () => {
      if (!fx.reopen) throw new Error('this adapter has no reopen: declare the case skipped');
      return fx.reopen();
    };

    test(C.blobs, async () => {
      expect(await store.readBlob(0, 1)).toBeNull();
      const at = await appendAll(store, ['alpha', 'bé', '', 'gamma-gamma']);
      expect(at).toEqual([0, 5, 8, 8]);
      expect(text(await store.readBlob(0, 5))).toBe('alpha');
      expect(text(await store.readBlob(5, 3))).toBe('bé');
      expect(text(await store.readBlob(8, 11))).toBe('gamma-gamma');
      // Inside one blob, and across three.
      expect(text(await store.readBlob(10, 4))).toBe('mma-');
      expect(text(await store.readBlob(3, 8))).toBe('habégam');
      expect(text(await store.readBlob(0, 19))).toBe('alphabégamma-gamma');
      expect(await store.readBlob(18, 2)).toBeNull();
      expect(await store.readBlob(19, 1)).toBeNull();
      // A binary blob comes back byte for byte.
      const bin = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
      const b = await store.appendBlob(bin);
      expect(b).toBe(19);
      expect(await store.readBlob(b, bin.length)).toEqual(bin);
    });

    test(C.journal, async () => {
      expect(await store.readJournal()).toBe('');
      const lines = Array.from({ length: 25 }, (_, i) => `{"n":${i},"p":"é/${i}.md"}\n`);
      await store.appendJournal(lines[0]!);
      await store.appendJournal(lines.slice(1, 3).join(''));
      for (const l of lines.slice(3)) await store.appendJournal(l);
      expect(await store.readJournal()).toBe(lines.join(''));
    });

    test(C.size, async () => {
      expect(await store.size()).toBe(0);
      await appendAll(store, ['abc', 'défg']);
      await store.appendJournal('{"é":1}\n');
      expect(await store.size()).toBe(3 + 5 + 9);
    });

    test(C.replace, async () => {
      const at = await appendAll(store, ['keep-1', 'drop', 'keep-2']);
      await store.appendJournal('old 1\nold 2\n');
      const order: string[] = [];
      async function* pieces() {
        // The core reads the old pack to make the pieces: it must still be there.
        for (const i of [0, 2]) {
          const b = await store.readBlob(at[i]!, 6);
          order.push(`piece ${text(b)}`);
          yield b!;
        }
      }
      await store.replace(pieces(), () => {
        order.push('journal');
        return 'new 1\n';
      });
      expect(order).toEqual(['piece keep-1', 'piece keep-2', 'journal']);
      expect(await store.readJournal()).toBe('new 1\n');
      expect(text(await store.readBlob(0, 12))).toBe('keep-1keep-2');
      expect(await store.readBlob(12, 1)).toBeNull();
      const size = await store.size();
      expect(size).toBeGreaterThanOrEqual(12 + 6);
      expect(size).toBeLessThan(16 + 12 + 64);
      // Appends continue after the new pack.
      expect(await store.appendBlob(bytes('next'))).toBe(12);
      await store.appendJournal('new 2\n');
      expect(text(await store.readBlob(6, 10))).toBe('keep-2next');
      expect(await store.readJournal()).toBe('new 1\nnew 2\n');
    });

    test(C.replaceFails, async () => {
      await appendAll(store, ['one', 'two']);
      await store.appendJournal('line\n');
      async function* failing() {
        yield bytes('partial');
        throw new Error('disk gone');
      }
      await expect(store.replace(failing(), () => 'never\n')).rejects.toThrow('disk gone');
      async function* fine() {
        yield bytes('all-pieces');
      }
      const noJournal = () => {
        throw new Error('no journal');
      };
      await expect(store.replace(fine(), noJournal)).rejects.toThrow('no journal');
      expect(await store.readJournal()).toBe('line\n');
      expect(text(await store.readBlob(0, 6))).toBe('onetwo');
      expect(await store.appendBlob(bytes('3'))).toBe(6);
      await store.appendJournal('after\n');
      expect(await store.readJournal()).toBe('line\nafter\n');
      if (fx.reopen) {
        const again = await fx.reopen();
        expect(await again.readJournal()).toBe('line\nafter\n');
        expect(text(await again.readBlob(0, 7))).toBe('onetwo3');
      }
    });

    test(C.reopen, async () => {
      await appendAll(store, ['first', 'second']);
      await store.appendJournal('a\n');
      await store.appendJournal('b\n');
      const again = await reopen();
      expect(await again.readJournal()).toBe('a\nb\n');
      expect(text(await again.readBlob(0, 11))).toBe('firstsecond');
      expect(await again.size()).toBe(await store.size());
      expect(await again.appendBlob(bytes('third'))).toBe(11);
      await again.appendJournal('c\n');
      const third = await reopen();
      expect(text(await third.readBlob(5, 11))).toBe('secondthird');
      expect(await third.readJournal()).toBe('a\nb\nc\n');
    });

    checkSkips();
  });
}
