import type { NoteEvent } from './context.ts';

/** One change as the feed serves it. */
export interface FeedEvent {
  /** Monotonic sequence number (it also orders events across restarts: see `createChangeFeed`). */
  id: number;
  type: 'note.created' | 'note.updated' | 'note.deleted' | 'note.moved' | 'note.restored';
  /** `author`: who made the change, named for people (a key by its device name, never its id). */
  data: { path: string; from?: string; checksum?: string; external: boolean; author?: string };
}

/** What `after(id)` answers: the events after `id`, where to continue, and whether to re-list. */
export interface FeedPage {
  events: FeedEvent[];
  next: number;
  /** True when events after `id` were already dropped from the ring (or `id` is from another run). */
  reset?: true;
}

export interface ChangeFeedDeps {
  /** The note service's subscription and the index's checksum of a path. */
  notes: {
    subscribe(fn: (e: NoteEvent) => void): () => void;
    checksumOf(path: string): string | null;
  };
  /** Milliseconds since the epoch; the first id of a run is this clock's value at start. */
  now: () => number;
  /** Events kept for resumes (default 10,000). */
  size?: number;
  /** Names an event's `by` for people (history/author.ts); without it, events carry no author. */
  author?: (by: string) => string;
}

/**
 * The change feed: a bounded ring of note events fed by `notes.subscribe()`. Ids continue from
 * the clock's milliseconds at start, so after a restart every older id is below the ring and
 * gets `reset` instead of silently skipping events.
 */
export function createChangeFeed(deps: ChangeFeedDeps) {
  const size = Math.max(1, deps.size ?? 10_000);
  const ring: FeedEvent[] = [];
  /** Id of the newest event (the start value when none happened yet). */
  let last = Math.floor(deps.now());
  const listeners = new Set<(e: FeedEvent) => void>();
  let closed = false;
  const onClose = new Set<() => void>();

  const unsubscribe = deps.notes.subscribe((e) => {
    const data: FeedEvent['data'] = { path: e.path, external: e.external };
    if (e.type === 'moved') data.from = e.from;
    // An outside change (the watcher, a read that found it first) is another program's.
    const by = e.by ?? (e.external ? 'outside' : undefined);
    if (by && deps.author) data.author = deps.author(by);
    if (e.type !== 'deleted') {
      const sum = deps.notes.checksumOf(e.path);
      if (sum) data.checksum = sum;
    }
    const ev: FeedEvent = { id: ++last, type: `note.${e.type}`, data };
    ring.push(ev);
    if (ring.length > size) ring.splice(0, ring.length - size);
    for (const fn of listeners) fn(ev);
  });

  const after = (id: number): FeedPage => {
    const oldest = ring[0]?.id ?? last + 1;
    // Nothing after `id` was dropped when it is at least oldest - 1; an id ahead is from elsewhere.
    if (id < oldest - 1 || id > last) return { events: [], next: last, reset: true };
    const events = ring.filter((e) => e.id > id);
    return { events, next: events.at(-1)?.id ?? Math.max(id, last) };
  };

  return {
    /** Id of the newest event: a starting point for a client that has seen nothing yet. */
    last: () => last,

    /** The events after `id` (or `reset` when some are gone). */
    after,

    /**
     * Like `after`, but when nothing is there yet, waits up to `ms` for the first event
     * (or until `signal` aborts or the feed closes).
     */
    async wait(id: number, ms: number, signal?: AbortSignal): Promise<FeedPage> {
      const now = after(id);
      if (now.events.length || now.reset || ms <= 0 || closed) return now;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          listeners.delete(done);
          onClose.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        listeners.add(done);
        onClose.add(done);
        signal?.addEventListener('abort', done);
      });
      return after(id);
    },

    /** Calls `fn` with every new event; returns the unsubscribe function. */
    listen(fn: (e: FeedEvent) => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },

    /** Calls `fn` once when the feed closes (server shutdown); returns the unsubscribe function. */
    onClose(fn: () => void): () => void {
      if (closed) fn();
      else onClose.add(fn);
      return () => onClose.delete(fn);
    },

    /** True once closed. */
    get closed() {
      return closed;
    },

    /** Stops following the notes and ends every stream and wait (graceful shutdown). */
    close(): void {
      if (closed) return;
      closed = true;
      unsubscribe();
      for (const fn of [...onClose]) fn();
      onClose.clear();
    },
  };
}

export type ChangeFeed = ReturnType<typeof createChangeFeed>;
