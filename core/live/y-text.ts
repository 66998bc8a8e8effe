/**
 * Text changes in Yjs terms: applying the smallest edits to a Y.Text, and the three-way merge of
 * a live document's unsaved typing with a write that reached the file meanwhile.
 */
import * as Y from 'yjs';
import { type TextEdit, textEdits } from './text-edits.ts';

/** Applies `edits` (positions in the text as it is now) in one transaction with `origin`. */
export function applyTextEdits(text: Y.Text, edits: readonly TextEdit[], origin: unknown): void {
  if (!edits.length) return;
  text.doc!.transact(() => {
    for (let i = edits.length - 1; i >= 0; i--) {
      const e = edits[i]!;
      if (e.del) text.delete(e.at, e.del);
      if (e.ins) text.insert(e.at, e.ins);
    }
  }, origin);
}

/** Turns `text` (which holds `from`) into `to` by the smallest edits. */
export function changeText(text: Y.Text, from: string, to: string, origin: unknown): void {
  applyTextEdits(text, textEdits(from, to), origin);
}

function fork(base: Uint8Array, clientID: number, from: string, to: string): Y.Doc {
  const d = new Y.Doc({ gc: false });
  d.clientID = clientID;
  Y.applyUpdate(d, base);
  changeText(d.getText('t'), from, to, null);
  return d;
}

/**
 * `base` changed into `ours` here and into `theirs` elsewhere: both sets of edits, merged the way
 * the CRDT merges two editors (an insertion of either side always lands; a deletion removes only
 * text of the base). `ours` first where both insert at one place.
 */
export function mergeTexts(base: string, ours: string, theirs: string): string {
  if (ours === base) return theirs;
  if (theirs === base || theirs === ours) return ours;
  const b = new Y.Doc({ gc: false });
  b.clientID = 3;
  b.getText('t').insert(0, base);
  const start = Y.encodeStateAsUpdate(b);
  const o = fork(start, 1, base, ours);
  const t = fork(start, 2, base, theirs);
  Y.applyUpdate(o, Y.encodeStateAsUpdate(t, Y.encodeStateVector(o)));
  const out = o.getText('t').toString();
  for (const d of [b, o, t]) d.destroy();
  return out;
}
