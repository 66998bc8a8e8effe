/** The index's table of notes by id (path, body length, title words, folder depth, postings' cost). */

/**
 * The notes of the index by id, as parallel arrays (grown by doubling): a query reads them per
 * posting, where a map of objects would cost a lookup and a pointer chase each.
 */
export function createDocTable() {
  const t = {
    paths: [] as (string | undefined)[],
    len: new Int32Array(64),
    tlen: new Uint16Array(64),
    /** Folder levels above the note (slashes in its path, at most 255). */
    depth: new Uint8Array(64),
    /** Estimated bytes the note's postings hold (as `addPostings` counts them): what removing it leaves dead. */
    cost: new Float64Array(64),
    size: 0,
    set(id: number, path: string, len: number, tlen: number): void {
      if (id >= t.len.length) {
        const cap = Math.max(id + 1, t.len.length * 2);
        const grow = <A extends Int32Array | Uint16Array | Uint8Array | Float64Array>(a: A, b: A) => {
          b.set(a);
          return b;
        };
        t.len = grow(t.len, new Int32Array(cap));
        t.tlen = grow(t.tlen, new Uint16Array(cap));
        t.depth = grow(t.depth, new Uint8Array(cap));
        t.cost = grow(t.cost, new Float64Array(cap));
      }
      while (t.paths.length < id) t.paths.push(undefined);
      if (t.paths[id] === undefined) t.size++;
      t.paths[id] = path;
      t.len[id] = len;
      t.tlen[id] = Math.min(tlen, 0xffff);
      let slashes = 0;
      for (let i = path.indexOf('/'); i >= 0 && slashes < 255; i = path.indexOf('/', i + 1)) slashes++;
      t.depth[id] = slashes;
    },
    delete(id: number): void {
      if (t.paths[id] === undefined) return;
      t.paths[id] = undefined;
      t.len[id] = 0;
      t.cost[id] = 0;
      t.size--;
    },
    clear(): void {
      t.paths = [];
      t.size = 0;
      t.len.fill(0);
      t.cost.fill(0);
    },
    /** `[id, path, body length, title words]` of every note, by id. */
    entries(): [number, string, number, number][] {
      const out: [number, string, number, number][] = [];
      t.paths.forEach((path, id) => {
        if (path !== undefined) out.push([id, path, t.len[id]!, t.tlen[id]!]);
      });
      return out;
    },
  };
  return t;
}

export type DocTable = ReturnType<typeof createDocTable>;
