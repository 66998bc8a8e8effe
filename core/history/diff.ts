/** A unified diff of two texts, by lines (LCS on what is left after the common head and tail). */

/** Largest middle (lines of a times lines of b) compared line by line; past it, one replaced block. */
const MAX_CELLS = 4_000_000;

type Op = { k: ' ' | '-' | '+'; line: string };

function middleOps(a: string[], b: string[]): Op[] {
  if (a.length * b.length > MAX_CELLS) {
    return [...a.map((line) => ({ k: '-' as const, line })), ...b.map((line) => ({ k: '+' as const, line }))];
  }
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ k: ' ', line: a[i++]! });
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) ops.push({ k: '-', line: a[i++]! });
    else ops.push({ k: '+', line: b[j++]! });
  }
  while (i < a.length) ops.push({ k: '-', line: a[i++]! });
  while (j < b.length) ops.push({ k: '+', line: b[j++]! });
  return ops;
}

/** The unified diff (3 lines of context) turning `before` into `after`; '' when equal. */
export function unifiedDiff(before: string, after: string, fromName: string, toName: string): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const ops: Op[] = [
    ...a.slice(0, head).map((line) => ({ k: ' ' as const, line })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((line) => ({ k: ' ' as const, line })),
  ];
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  const C = 3;
  let idx = 0;
  let ai = 1;
  let bi = 1;
  while (idx < ops.length) {
    if (ops[idx]!.k === ' ') {
      idx++;
      ai++;
      bi++;
      continue;
    }
    // A hunk: back up C lines of context, run until C*2 unchanged lines follow the last change.
    const back = Math.min(C, idx, ai - 1);
    const start = idx - back;
    const sa = ai - back;
    const sb = bi - back;
    let end = idx;
    let quiet = 0;
    while (end < ops.length && quiet <= C * 2) {
      quiet = ops[end]!.k === ' ' ? quiet + 1 : 0;
      end++;
    }
    end = Math.min(ops.length, end - Math.max(0, quiet - C));
    const body = ops.slice(start, end);
    const na = body.filter((o) => o.k !== '+').length;
    const nb = body.filter((o) => o.k !== '-').length;
    out.push(`@@ -${na ? sa : sa - 1},${na} +${nb ? sb : sb - 1},${nb} @@`);
    for (const o of body) out.push(`${o.k}${o.line}`);
    for (let k = idx; k < end; k++) {
      const o = ops[k]!;
      if (o.k !== '+') ai++;
      if (o.k !== '-') bi++;
    }
    idx = end;
  }
  return `${out.join('\n')}\n`;
}
