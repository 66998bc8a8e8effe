/**
 * Search queries drawn from a vault's own words, the same every run (a fixed LCG seed): one word,
 * two words, a question, a typo (two letters swapped) and a word being typed (a prefix), in turn.
 * Shared by speed.ts and scoped-speed.ts so both time the same kinds of queries.
 */
export function vaultQueries(texts: readonly string[], count = 300, seed = 7): string[] {
  let s = seed;
  const rnd = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  const queries: string[] = [];
  for (let i = 0; queries.length < count; i++) {
    const words = (texts[rnd(texts.length)]!.match(/[a-z]{4,}/g) ?? []) as string[];
    if (words.length < 3) continue;
    const w = () => words[rnd(words.length)]!;
    const kind = i % 5;
    if (kind === 0) queries.push(w());
    else if (kind === 1) queries.push(`${w()} ${w()}`);
    else if (kind === 2) queries.push(`how do I ${w()} the ${w()} for ${w()}`);
    else if (kind === 3) {
      const x = w();
      queries.push(`${x.slice(0, 1)}${x[2]}${x[1]}${x.slice(3)} ${w()}`); // a swap: a typo
    } else queries.push(`${w()} ${w().slice(0, 4)}`); // the last word being typed
  }
  return queries;
}
