/**
 * What the workspace keeps on this device for offline use, per profile, in localStorage: the
 * notes read most recently (up to RECENT_NOTES, newest first), the last folder tree and note list,
 * and drafts typed while the server could not be reached (edits of kept notes and new notes, each
 * sent on reconnect by offline-sync.ts). Storage that is full or unavailable (private mode) only
 * means less is kept, and a draft takes room from the kept notes first: nothing here throws, and a
 * draft that could not be kept is reported (`saveDraft` answers false), never dropped silently.
 */
import type { FolderNode, Note, NoteEntry } from './workspace-api.ts';

/** How many recently read notes are kept for offline reading. */
export const RECENT_NOTES = 30;
/** A note larger than this (characters) is not kept. */
const MAX_NOTE_CHARS = 200_000;

/** The list as kept offline: enough for the tree, the list and the switcher. */
export type ListEntry = Pick<NoteEntry, 'path' | 'title' | 'tags'> & { aliases?: string[] };

/** A draft typed offline, sent when the server answers again. */
export interface Draft {
  path: string;
  text: string;
  /**
   * The checksum of the version the draft started from: sent as the write's base, so the server
   * merges it with what changed since. Null for a note created offline (sent as a create).
   */
  baseChecksum: string | null;
  savedAt: string;
}

const read = <T>(store: Storage, key: string, fallback: T): T => {
  try {
    const raw = store.getItem(key);
    return raw ? (JSON.parse(raw) as T) : fallback;
  } catch {
    return fallback;
  }
};
const write = (store: Storage, key: string, value: unknown): boolean => {
  try {
    store.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
};

/** The aliases a note's frontmatter names (`aliases` or `alias`, a list or one string). */
export function aliasesOf(frontmatter: Record<string, unknown> | undefined): string[] {
  const v = frontmatter?.aliases ?? frontmatter?.alias;
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The offline store of one profile (`id`). */
export function offlineStore(store: Storage, id: string) {
  const NOTES = `quire.offline.notes.v1:${id}`;
  const LIST = `quire.offline.list.v1:${id}`;
  const DRAFTS = `quire.drafts.v1:${id}`;
  type Kept = { note: Note; savedAt: string };
  return {
    /** Keeps `note` as the most recent one (dropping the oldest beyond RECENT_NOTES, or more if storage is full). */
    keepNote(note: Note, now = new Date()): void {
      if (note.content.length > MAX_NOTE_CHARS) return;
      let kept = read<Kept[]>(store, NOTES, []).filter((k) => k.note.path !== note.path);
      kept.unshift({ note, savedAt: now.toISOString() });
      kept = kept.slice(0, RECENT_NOTES);
      while (kept.length && !write(store, NOTES, kept)) kept.pop();
    },
    /** The kept copy of `path`, with when it was read. */
    note(path: string): Kept | null {
      return read<Kept[]>(store, NOTES, []).find((k) => k.note.path === path) ?? null;
    },
    /** Aliases by path: of the list as last seen, and of the kept notes. */
    aliases(): Map<string, string[]> {
      const out = new Map<string, string[]>();
      for (const e of read<{ list: ListEntry[] } | null>(store, LIST, null)?.list ?? []) {
        if (e.aliases?.length) out.set(e.path, e.aliases);
      }
      for (const k of read<Kept[]>(store, NOTES, [])) {
        const a = aliasesOf(k.note.frontmatter);
        if (a.length) out.set(k.note.path, a);
      }
      return out;
    },
    /** Keeps the tree and the list as last seen. */
    keepList(tree: FolderNode, notes: readonly NoteEntry[]): void {
      const list: ListEntry[] = notes.map((n) => ({
        path: n.path,
        title: n.title,
        tags: n.tags,
        ...(n.aliases.length ? { aliases: n.aliases } : {}),
      }));
      if (!write(store, LIST, { tree, list })) write(store, LIST, { tree: null, list });
    },
    /** The tree and list as last seen, if any. */
    list(): { tree: FolderNode | null; list: ListEntry[] } | null {
      return read<{ tree: FolderNode | null; list: ListEntry[] } | null>(store, LIST, null);
    },
    /**
     * Saves a draft (the text typed so far); when storage is full, the notes kept for reading make
     * room, oldest first (the draft's own note last). False when storage refused it all the same.
     */
    saveDraft(d: Omit<Draft, 'savedAt'>, now = new Date()): boolean {
      const all = read<Record<string, Draft>>(store, DRAFTS, {});
      all[d.path] = { ...d, savedAt: now.toISOString() };
      if (write(store, DRAFTS, all)) return true;
      const kept = read<Kept[]>(store, NOTES, []);
      // Newest first: popped from the end, the oldest go first and the draft's own note last.
      const order = [
        ...kept.filter((k) => k.note.path === d.path),
        ...kept.filter((k) => k.note.path !== d.path),
      ];
      while (order.length) {
        order.pop();
        const left = kept.filter((k) => order.includes(k));
        if (!write(store, NOTES, left)) continue;
        if (write(store, DRAFTS, all)) return true;
      }
      return false;
    },
    /** The draft of `path`, if one was kept. */
    draft(path: string): Draft | null {
      return read<Record<string, Draft>>(store, DRAFTS, {})[path] ?? null;
    },
    /** Every kept draft. */
    drafts(): Draft[] {
      return Object.values(read<Record<string, Draft>>(store, DRAFTS, {}));
    },
    /** Drops the draft of `path` (saved or discarded by the user). */
    dropDraft(path: string): void {
      const all = read<Record<string, Draft>>(store, DRAFTS, {});
      delete all[path];
      write(store, DRAFTS, all);
    },
  };
}

export type OfflineStore = ReturnType<typeof offlineStore>;
