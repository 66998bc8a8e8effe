import { afterEach, beforeEach, describe, expect } from 'vitest';
import type { StateStore } from '../../core/ports.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/** A fresh, empty store for one case; `reopen` gives a second store over the same backing. */
export interface StateStoreFixture {
  store: StateStore;
  /** A new store instance over the same data, as after a restart (absent: nothing outlives the object). */
  reopen?: () => Promise<StateStore>;
  cleanup(): Promise<void>;
}

export interface StateStoreContractOptions {
  create: () => Promise<StateStoreFixture>;
  skip?: DeclaredSkip[];
}

/** Every case title of the suite, for declaring skips without typos. */
export const STATE_STORE_CASES = {
  absent: 'get of an absent key is null',
  roundTrip: 'put then get returns the same text, non-ASCII, empty and multi-line included',
  replace: 'put replaces the whole value',
  remove: 'remove deletes the key, touches no other, and is quiet when absent',
  keys: 'keys are independent: the names the server uses each hold their own value',
  large: 'a large value (the index cache of a big vault) round-trips whole',
  concurrent: 'concurrent puts to one key end with exactly one of the values, in full',
  readers: 'readers during a put see the old or the new value, never a mix',
  reopen: 'what was put is there for a new store over the same backing, and a removal stays removed',
} as const;

/** The keys the server stores (see the callers of the StateStore port). */
const SERVER_KEYS = [
  'credentials.json',
  'index-cache.json',
  'channels.json',
  'channel-history-ch_0123456789abcdef.json',
  'plugins.json',
  'plugin.outbound-webhooks.json',
];

/**
 * The guarantees of the StateStore port (`core/ports.ts`), run against every adapter. Each case
 * gets a fresh, empty store from `create` and disposes of it afterwards.
 */
export function runStateStoreContract(name: string, opts: StateStoreContractOptions): void {
  const C = STATE_STORE_CASES;
  describe(`StateStore contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(opts.skip);
    let fx: StateStoreFixture;
    let state: StateStore;
    beforeEach(async () => {
      fx = await opts.create();
      state = fx.store;
    });
    afterEach(async () => {
      await fx?.cleanup();
    });

    test(C.absent, async () => {
      expect(await state.get('absent')).toBeNull();
      expect(await state.get('index-cache.json')).toBeNull();
    });

    test(C.roundTrip, async () => {
      const json = '{"notes":["日本語","café"],"emoji":"👩🏽‍💻","rtl":"\u202Eabc"}\n';
      await state.put('index-cache.json', json);
      await state.put('empty', '');
      await state.put('lines', 'one\r\ntwo\n\nthree\t"quoted" \\ back\u0000nul');
      expect(await state.get('index-cache.json')).toBe(json);
      expect(await state.get('empty')).toBe('');
      expect(await state.get('lines')).toBe('one\r\ntwo\n\nthree\t"quoted" \\ back\u0000nul');
    });

    test(C.replace, async () => {
      await state.put('k', 'a long first value '.repeat(50));
      await state.put('k', 'short');
      expect(await state.get('k')).toBe('short');
      await state.put('k', '');
      expect(await state.get('k')).toBe('');
    });

    test(C.remove, async () => {
      await state.put('a', '1');
      await state.put('b', '2');
      await state.remove('a');
      expect(await state.get('a')).toBeNull();
      expect(await state.get('b')).toBe('2');
      await expect(state.remove('a')).resolves.toBeUndefined();
      await expect(state.remove('never-there')).resolves.toBeUndefined();
      await state.put('a', 'back');
      expect(await state.get('a')).toBe('back');
    });

    test(C.keys, async () => {
      await Promise.all(SERVER_KEYS.map((k, i) => state.put(k, `{"key":"${k}","n":${i}}`)));
      for (const [i, k] of SERVER_KEYS.entries()) expect(await state.get(k)).toBe(`{"key":"${k}","n":${i}}`);
      await state.remove('channels.json');
      expect(await state.get('channels.json')).toBeNull();
      expect(await state.get('channel-history-ch_0123456789abcdef.json')).not.toBeNull();
    });

    test(C.large, async () => {
      const row = (i: number) => `{"path":"notes/n${i}.md","title":"Note ${i} — é","links":[]},`;
      const big = `[${Array.from({ length: 40_000 }, (_, i) => row(i)).join('\n')}]`;
      expect(big.length).toBeGreaterThan(2_000_000);
      await state.put('index-cache.json', big);
      expect(await state.get('index-cache.json')).toBe(big);
    });

    test(C.concurrent, async () => {
      const values = Array.from({ length: 10 }, (_, i) => String.fromCharCode(65 + i).repeat(50_000 + i));
      await Promise.all(values.map((v) => state.put('contended', v)));
      const final = await state.get('contended');
      expect(values.filter((v) => v === final)).toHaveLength(1);
    });

    test(C.readers, async () => {
      const before = 'a'.repeat(512 * 1024);
      const after = 'b'.repeat(400 * 1024);
      await state.put('big', before);
      const reads: Promise<string | null>[] = [];
      const writing = state.put('big', after);
      for (let i = 0; i < 10; i++) reads.push(state.get('big'));
      await writing;
      for (const value of await Promise.all(reads)) expect(value === before || value === after).toBe(true);
      expect(await state.get('big')).toBe(after);
    });

    test(C.reopen, async () => {
      await state.put('credentials.json', '{"v":1,"keys":[]}');
      await state.put('gone', 'x');
      await state.remove('gone');
      const again = await fx.reopen!();
      expect(await again.get('credentials.json')).toBe('{"v":1,"keys":[]}');
      expect(await again.get('gone')).toBeNull();
    });

    checkSkips();
  });
}
