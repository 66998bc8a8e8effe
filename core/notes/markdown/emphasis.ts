/**
 * Emphasis delimiter runs (`*`, `_`) and their pairing, as the reference parser pairs them. The
 * index needs no emphasis nodes, only where text is split: a run that opens or closes emphasis
 * ends the text before it (or starts the text after it), and its unused characters stay text.
 */

export interface Delim {
  ch: number;
  /** Characters of the run not used for emphasis (yet). */
  n: number;
  canOpen: boolean;
  canClose: boolean;
  /** Some of its characters close emphasis (they come first), or open it (they come last). */
  closes: boolean;
  opens: boolean;
}

const PUNCT = /\p{P}|\p{S}/u;
const WS = /\s/;

/** 1 for white space (and the edges of the content), 2 for punctuation, 0 otherwise. */
function classify(code: number): number {
  if (Number.isNaN(code)) return 1;
  const ch = String.fromCharCode(code);
  if (WS.test(ch)) return 1;
  return PUNCT.test(ch) ? 2 : 0;
}

/** The delimiter run of `len` characters at `i` in `s`. */
export function delimAt(s: string, i: number, len: number): Delim {
  const ch = s.charCodeAt(i);
  const before = classify(i > 0 ? s.charCodeAt(i - 1) : Number.NaN);
  const after = classify(s.charCodeAt(i + len));
  const open = after === 0 || (after === 2 && before !== 0);
  const close = before === 0 || (before === 2 && after !== 0);
  const star = ch === 42;
  return {
    ch,
    n: len,
    canOpen: star ? open : open && (before !== 0 || !close),
    canClose: star ? close : close && (after !== 0 || !open),
    closes: false,
    opens: false,
  };
}

/**
 * Pairs the runs of `stack` from index `bottom` on (CommonMark's "process emphasis"), then drops
 * them from the stack. Linear: each failed search records a floor per kind of closer.
 */
export function processEmphasis(stack: Delim[], bottom: number): void {
  if (stack.length - bottom < 2) {
    stack.length = bottom;
    return;
  }
  const floors = new Map<number, number>();
  const removed = new Uint8Array(stack.length);
  // prev[k]: a candidate for the nearest run before k still in play (removed ones are skipped, paths shortened).
  const prev = new Int32Array(stack.length);
  for (let k = 0; k < prev.length; k++) prev[k] = k - 1;
  const before = (k: number): number => {
    let p = prev[k]!;
    while (p >= 0 && removed[p]) p = prev[p]!;
    let q = prev[k]!;
    while (q >= 0 && removed[q]) {
      const nq = prev[q]!;
      prev[q] = p;
      q = nq;
    }
    prev[k] = p;
    return p;
  };
  for (let c = bottom; c < stack.length; c++) {
    const closer = stack[c]!;
    if (!closer.canClose || removed[c]) continue;
    for (;;) {
      const key = closer.ch * 8 + (closer.canOpen ? 4 : 0) + (closer.n % 3);
      const floor = Math.max(bottom - 1, floors.get(key) ?? bottom - 1);
      let o = before(c);
      for (; o > floor; o = before(o)) {
        const opener = stack[o]!;
        if (opener.ch !== closer.ch || !opener.canOpen) continue;
        const odd =
          (closer.canOpen || opener.canClose) &&
          (opener.n + closer.n) % 3 === 0 &&
          !(opener.n % 3 === 0 && closer.n % 3 === 0);
        if (!odd) break;
      }
      if (o <= floor) {
        floors.set(key, c - 1);
        if (!closer.canOpen) removed[c] = 1;
        break;
      }
      const opener = stack[o]!;
      const use = opener.n >= 2 && closer.n >= 2 ? 2 : 1;
      opener.n -= use;
      closer.n -= use;
      opener.opens = true;
      closer.closes = true;
      for (let k = before(c); k > o; k = before(k)) removed[k] = 1;
      if (opener.n === 0) removed[o] = 1;
      if (closer.n === 0) {
        removed[c] = 1;
        break;
      }
    }
  }
  stack.length = bottom;
}
