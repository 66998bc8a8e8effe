import { aliasesOf } from '../search/lexical/index.ts';
import type { NoteContext } from './context.ts';
import { listKey } from './list-key.ts';
import type { NoteSummary } from './note-index.ts';
import { sliced } from './slices.ts';
import { countTags, type TagCount } from './tags.ts';

/**
 * The note service's views of the index: the list, tags and aliases (each the same object until
 * the index changes), and the list's preparation and key.
 */

/** The list, tags and aliases of the index, each built once per index generation. */
export function createIndexViews(ctx: NoteContext) {
  let list: { generation: number; items: NoteSummary[] } | null = null;
  let keyMemo: { index: unknown; generation: number; key: Promise<string | null> } | null = null;
  let tagCounts: { generation: number; items: TagCount[] } | null = null;
  let aliasMap: { generation: number; map: Map<string, string[]> } | null = null;
  return {
    /** Every tag with its note count, most used first. Same array until something changes. */
    tags(): TagCount[] {
      ctx.requireReady();
      const index = ctx.index;
      if (tagCounts?.generation !== index.generation) {
        const entries = index.sortedPaths().map((p) => index.entries.get(p)!);
        tagCounts = { generation: index.generation, items: countTags(entries) };
      }
      return tagCounts.items;
    },

    /**
     * The aliases each note's frontmatter names (`aliases` or `alias`, a list or one string), by
     * path; only notes that have some. Same map until something changes.
     */
    aliases(): ReadonlyMap<string, readonly string[]> {
      ctx.requireReady();
      const index = ctx.index;
      if (aliasMap?.generation !== index.generation) {
        const map = new Map<string, string[]>();
        for (const [path, entry] of index.entries) {
          const a = aliasesOf(entry.frontmatter);
          if (a.length) map.set(path, a);
        }
        aliasMap = { generation: index.generation, map };
      }
      return aliasMap.map;
    },

    /**
     * Every note's summary, sorted by path. Same array object until something changes. The items
     * are built on their first use (read them in the turn you got them): a caller after the
     * generation alone (a warm start's first list, answered from the persisted one) builds none.
     */
    list(): { generation: number; items: NoteSummary[] } {
      ctx.requireReady();
      const index = ctx.index;
      if (list?.generation !== index.generation) {
        let items: NoteSummary[] | null = null;
        list = {
          generation: index.generation,
          get items() {
            items ??= index.sortedPaths().map((p) => index.summary(p)!);
            return items;
          },
        };
      }
      return list;
    },

    /**
     * Builds every summary of `generation` a slice at a time (the list's items are then cheap to
     * take); false when the index is not at it (or moved on meanwhile).
     */
    async prepareList(generation: number): Promise<boolean> {
      const index = ctx.index;
      if (ctx.status.state !== 'ready' || index.generation !== generation) return false;
      for await (const p of sliced(index.sortedPaths())) {
        if (ctx.index !== index || index.generation !== generation) return false;
        index.summary(p);
      }
      return ctx.index === index && index.generation === generation;
    },

    /**
     * The digest of everything the list's summaries are made of (core/notes/list-key.ts) while the
     * index is at `generation`; null when it is not (or moved on meanwhile).
     */
    async listKey(generation: number): Promise<string | null> {
      const index = ctx.index;
      if (ctx.status.state !== 'ready' || index.generation !== generation) return null;
      if (keyMemo?.index === index && keyMemo.generation === generation) return keyMemo.key;
      const pending = listKey(index);
      keyMemo = { index, generation, key: pending };
      const key = await pending;
      if (key === null && keyMemo?.key === pending) keyMemo = null;
      return ctx.index === index ? key : null;
    },
  };
}
