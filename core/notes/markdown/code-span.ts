/** Code spans: finding the closing backtick run in bounded time, and the span's value. */

/** Where `s` has a run of exactly `len` backticks after `from`, via one lazily built index of runs. */
export function backtickFinder(s: string): (len: number, from: number) => number {
  let runs: Map<number, number[]> | null = null;
  const cursor = new Map<number, number>();
  return (len, from) => {
    if (!runs) {
      runs = new Map();
      for (let i = 0; i < s.length; i++) {
        if (s.charCodeAt(i) !== 96) continue;
        let j = i;
        while (s.charCodeAt(j) === 96) j++;
        const list = runs.get(j - i) ?? [];
        list.push(i);
        runs.set(j - i, list);
        i = j - 1;
      }
    }
    const list = runs.get(len);
    if (!list) return -1;
    let at = cursor.get(len) ?? 0;
    while (at < list.length && list[at]! < from) at++;
    cursor.set(len, at);
    return at < list.length ? list[at]! : -1;
  };
}

/** A code span's value: line endings as spaces, one padding space stripped from each side. */
export function codeValue(raw: string): string {
  const v = raw.replace(/\n/g, ' ');
  if (v.length > 2 && v[0] === ' ' && v[v.length - 1] === ' ' && /[^ ]/.test(v)) return v.slice(1, -1);
  return v;
}
