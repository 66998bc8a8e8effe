/**
 * A three-way merge of token sequences (lines, then words), over a two-way diff of our choice.
 * The two-way diff is Myers' (diff-sequences, the one Jest ships): it costs O((N+M)·D), so a
 * 1 MB note with a few hundred edits merges in milliseconds, where node-diff3's LCS and
 * diff-match-patch took seconds to minutes (docs/decisions/0023-three-way-merge.md).
 */
import * as diffSequencesModule from 'diff-sequences';

type DiffSequences = (
  aLength: number,
  bLength: number,
  isCommon: (a: number, b: number) => boolean,
  foundSubsequence: (n: number, a: number, b: number) => void,
) => void;
// A CommonJS module with `exports.default`: Node's ESM loader hands over the exports object as
// the default, a bundler the function itself.
const loaded = diffSequencesModule as unknown as { default: DiffSequences | { default: DiffSequences } };
const diffSequences: DiffSequences =
  typeof loaded.default === 'function' ? loaded.default : loaded.default.default;

/** A change from the base: base tokens [oStart, oEnd) became side tokens [sStart, sEnd). */
export interface Hunk {
  oStart: number;
  oEnd: number;
  sStart: number;
  sEnd: number;
}

/** The changes turning `o` into `s` (both interned token ids), in order. */
export type HunkDiff = (o: Int32Array, s: Int32Array) => Hunk[];

/** Myers' diff through diff-sequences: the gaps between the common runs it reports. */
export const myersHunks: HunkDiff = (o, s) => {
  const out: Hunk[] = [];
  let oi = 0;
  let si = 0;
  diffSequences(
    o.length,
    s.length,
    (a, b) => o[a] === s[b],
    (n, a, b) => {
      if (a > oi || b > si) out.push({ oStart: oi, oEnd: a, sStart: si, sEnd: b });
      oi = a + n;
      si = b + n;
    },
  );
  if (oi < o.length || si < s.length) out.push({ oStart: oi, oEnd: o.length, sStart: si, sEnd: s.length });
  return out;
};

/** One region of a merge: settled tokens, or a conflict with what each side made of the base. */
export type Region<T> = { ok: T[] } | { conflict: { base: T[]; ours: T[]; theirs: T[] } };

/** Gives every distinct token a small integer, so the diff compares numbers. */
function intern<T>(lists: T[][]): Int32Array[] {
  const ids = new Map<T, number>();
  return lists.map((list) => {
    const out = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) {
      let id = ids.get(list[i]!);
      if (id === undefined) {
        id = ids.size;
        ids.set(list[i]!, id);
      }
      out[i] = id;
    }
    return out;
  });
}

/** What `side` made of base tokens [lo, hi), given its hunks inside that range. */
function sideOf<T>(base: T[], side: T[], hunks: Hunk[], lo: number, hi: number): T[] {
  const out: T[] = [];
  let at = lo;
  for (const h of hunks) {
    for (; at < h.oStart; at++) out.push(base[at]!);
    for (let k = h.sStart; k < h.sEnd; k++) out.push(side[k]!);
    at = h.oEnd;
  }
  for (; at < hi; at++) out.push(base[at]!);
  return out;
}

const same = <T>(a: T[], b: T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Merges `ours` and `theirs`, both made from `base`. Changes that do not touch the same base
 * tokens both land (an insertion at the edge of the other side's change goes before or after it);
 * the same change on both sides lands once; anything else is a conflict region.
 */
export function diff3<T>(base: T[], ours: T[], theirs: T[], diff: HunkDiff = myersHunks): Region<T>[] {
  const [o, a, b] = intern([base, ours, theirs]) as [Int32Array, Int32Array, Int32Array];
  const tagged = [
    ...diff(o, a).map((h) => ({ h, side: 0 })),
    ...diff(o, b).map((h) => ({ h, side: 1 })),
    // An insertion at a point sorts before a change starting there, so it lands before it.
  ].sort((x, y) => x.h.oStart - y.h.oStart || x.h.oEnd - y.h.oEnd || x.side - y.side);
  const regions: Region<T>[] = [];
  const push = (r: Region<T>) => {
    const last = regions.at(-1);
    if (last && 'ok' in last && 'ok' in r) last.ok.push(...r.ok);
    else if (!('ok' in r) || r.ok.length) regions.push(r);
  };
  let at = 0;
  for (let i = 0; i < tagged.length; ) {
    // A group: hunks whose base ranges overlap (or are insertions at one point) go together.
    const group = [tagged[i]!];
    const lo = tagged[i]!.h.oStart;
    let hi = tagged[i]!.h.oEnd;
    for (i++; i < tagged.length; i++) {
      const { h } = tagged[i]!;
      // Two insertions at one point overlap; an insertion at the end of a change goes after it.
      const twoInserts = h.oStart === h.oEnd && h.oStart === lo && hi === lo;
      if (!(h.oStart < hi || twoInserts)) break;
      group.push(tagged[i]!);
      hi = Math.max(hi, h.oEnd);
    }
    push({ ok: base.slice(at, lo) });
    const mine = group.filter((g) => g.side === 0).map((g) => g.h);
    const yours = group.filter((g) => g.side === 1).map((g) => g.h);
    const oursPart = sideOf(base, ours, mine, lo, hi);
    const theirsPart = sideOf(base, theirs, yours, lo, hi);
    if (!mine.length) push({ ok: theirsPart });
    else if (!yours.length || same(oursPart, theirsPart)) push({ ok: oursPart });
    else push({ conflict: { base: base.slice(lo, hi), ours: oursPart, theirs: theirsPart } });
    at = hi;
  }
  push({ ok: base.slice(at) });
  return regions;
}
