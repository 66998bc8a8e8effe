/**
 * The one lifecycle of a Quire server, shared by every runtime root (docs/reference/architecture.md
 * "Lifecycle"): index the vault, then watch it, save the index cache and reconcile on timers;
 * stop in one order. Long-running runtimes (Node, Bun, Deno) use `startLifecycle`; the Worker,
 * which may be evicted at any time and has no timers between requests, uses `alarmLifecycle`,
 * the same steps driven by its Durable Object alarm. Runtime-neutral: no `node:*` import.
 */
import type { NoteService } from '../../core/notes/service.ts';
import type { Logger, NoteStore, StopWatching } from '../../core/ports.ts';

/** The steps of a stop, in the order they run (a test records them). */
export const STOP_ORDER = [
  'timers',
  'feed',
  'doors',
  'index',
  'channels',
  'watcher',
  'writes',
  'plugins',
  'cache',
  'after',
] as const;
export type StopStep = (typeof STOP_ORDER)[number];

/** What the lifecycle runs: the note service and its store, and the app's closable parts. */
export interface LifecycleParts {
  notes: NoteService;
  /** The store whose `watch` reports outside edits (absent: no watcher). */
  store: Pick<NoteStore, 'watch'>;
  logger: Logger;
  /** RECONCILE_SECONDS: how often the whole vault is compared with the index. */
  reconcileSeconds: number;
  /** How often the index cache is saved when it changed (default 10 s). */
  cacheSaveSeconds?: number;
  /** SHUTDOWN_GRACE_MS: how long the doors let requests in flight finish. */
  shutdownGraceMs: number;
  /** The app's parts that a stop closes. */
  app: {
    feed: { close(): void };
    /** Live editing: its open documents are written and its editors told before the doors close. */
    live?: { close(): Promise<void> };
    channels: { close(): Promise<void> };
    plugins: { stop(): Promise<void> };
    /** Semantic search (EMBEDDINGS_*): started once the index is ready, stopped with the timers. */
    semantic?: { start(): Promise<void>; stop(): void };
    /** The gzip'd list kept for the next start: its save in flight is finished with the cache's. */
    listStore?: { settled(): Promise<void> };
  };
  /** Runs once the index is ready, before the cache is saved (Node: closes the analyzer threads). */
  afterIndex?: () => Promise<void>;
  /** Told the name of each stop step as it starts (tests record the order). */
  onStopStep?: (step: StopStep) => void;
}

/** A door requests come in by (the HTTP server, the relay connector): closed first on a stop. */
export type Door = (graceMs: number) => Promise<unknown>;

/** A running lifecycle. */
export interface Lifecycle {
  /** Resolves once the vault is indexed (rejects when indexing failed; already logged). */
  ready: Promise<void>;
  /** Adds a door (a server started after the lifecycle); doors close together, first. */
  addDoor(door: Door): void;
  /** Adds a step that runs last, after the cache is saved (e.g. the embedded relay's stop). */
  addFinal(step: () => Promise<unknown>): void;
  /** The ordered stop (STOP_ORDER); idempotent, logs `shutting down` and `stopped`. */
  stop(reason?: string): Promise<void>;
}

/** A timer that never keeps the process alive on its own (Node, Bun; Deno through its own call). */
export function unref(t: unknown): void {
  (t as { unref?: () => void } | undefined)?.unref?.();
  const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
  if (typeof t === 'number') deno?.unrefTimer?.(t);
}

/**
 * Indexes the vault (logging progress), then starts the watcher, a reconcile once it is up, and
 * the cache-save and reconcile timers; `stop` undoes it all in STOP_ORDER.
 */
export function startLifecycle(parts: LifecycleParts): Lifecycle {
  const { notes, logger } = parts;
  const doors: Door[] = [];
  const finals: (() => Promise<unknown>)[] = [];
  // The watcher starts once the index is ready; the load's walk armed it (a store with `listAll`),
  // so it reads no folder again and reports what changed meanwhile. A watcher that had to walk on
  // its own (another store) is followed by one reconcile, which closes the gap between them.
  let watching: Promise<StopWatching> | undefined;
  const started = performance.now();
  let lastLog = 0;
  // The load's walk of the vault arms the watch, which is adopted below without a
  // second walk; it reports every change since that walk, so no reconcile is needed after it.
  const ready = notes
    .load(
      (done, total) => {
        const now = performance.now();
        if (now - lastLog > 1000 || done === total) {
          lastLog = now;
          const rate = Math.round(done / ((now - started) / 1000));
          logger.info('indexing', { done, total, notesPerSecond: rate });
        }
      },
      { watch: parts.store.watch !== undefined },
    )
    .then(async () => {
      logger.info('index ready', {
        notes: notes.status().notes,
        ms: Math.round(performance.now() - started),
      });
      await parts.afterIndex?.();
      await notes.saveCache();
      watching = parts.store.watch?.((changes) => void notes.applyExternalChanges(changes));
      void watching?.then((stop) => (stop.sinceListing ? 0 : notes.reconcile()));
      await parts.app.semantic?.start();
    });
  ready.catch((err) => logger.error('indexing failed', { error: String(err) }));
  // Each timed save waits for a quiet spell first (core/notes/warm-start.ts, SETTLE_WAIT_MS): at
  // 100,000 notes the first list is built for seconds after ready, and a save beside it slowed it.
  const saver = setInterval(
    () =>
      void notes
        .settle()
        .then(() => notes.saveCache())
        .catch(() => {}),
    (parts.cacheSaveSeconds ?? 10) * 1000,
  );
  unref(saver);
  // A safety net for changes a watcher can miss (network filesystems, overflowed inotify queues).
  const reconciler = setInterval(() => {
    notes.reconcile().then(
      (changed) => logger.debug('reconcile', { trigger: 'timer', changed }),
      (err) => logger.warn('reconcile failed', { error: String(err) }),
    );
  }, parts.reconcileSeconds * 1000);
  unref(reconciler);

  let stopping: Promise<void> | undefined;
  return {
    ready,
    addDoor: (door) => void doors.push(door),
    addFinal: (step) => void finals.push(step),
    stop(reason = 'stop') {
      stopping ??= (async () => {
        const step = (name: StopStep) => parts.onStopStep?.(name);
        logger.info('shutting down', { reason });
        step('timers');
        clearInterval(saver);
        clearInterval(reconciler);
        parts.app.semantic?.stop();
        // Event streams and long polls end now (clients resume by id), so they do not hold the drain.
        step('feed');
        parts.app.feed.close();
        await parts.app.live?.close();
        // New work stops at once on every door (direct: 503 or refused; relay: the connector
        // unregisters first); what is in flight on any finishes within the grace.
        step('doors');
        await Promise.all(doors.map((close) => close(parts.shutdownGraceMs)));
        step('index');
        await ready.catch(() => {});
        step('channels');
        await parts.app.channels.close();
        step('watcher');
        await (await watching)?.();
        step('writes');
        await notes.drain();
        step('plugins');
        await parts.app.plugins.stop();
        step('cache');
        await parts.app.listStore?.settled();
        // Saved: the next start reads only the notes changed since (core/notes/loading.ts).
        await notes.saveCache();
        step('after');
        for (const final of finals) await final();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}

/** The part of a Durable Object's storage the alarm form uses. */
export interface AlarmStorage {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
}

/**
 * The Worker's form of the lifecycle: there are no timers between requests (the object may be
 * evicted at any time), so its alarm does the timers' work. A write arms it for the cache save
 * (INDEX_CACHE_SAVE_SECONDS); every request makes sure it is armed for the next reconcile
 * (RECONCILE_SECONDS after the last one). The alarm saves the cache and reconciles when due. An
 * idle vault is not kept awake: after the last request at most one reconcile follows, and a cold
 * start compares the bucket with the index anyway (docs/guide/runtimes.md).
 */
export function alarmLifecycle(opts: {
  notes: NoteService;
  storage: AlarmStorage;
  logger: Logger;
  reconcileSeconds: number;
  cacheSaveSeconds: number;
  /**
   * The history's pruning (versions and trash past their retention, then compaction), run by the
   * reconcile alarm at most once per `pruneEveryMs` (default an hour): a Worker's timers die with
   * its Durable Object, its alarms do not.
   */
  prune?: () => Promise<{ versions: number; trash: number }>;
  pruneEveryMs?: number;
  now?: () => number;
}) {
  const now = opts.now ?? Date.now;
  const reconcileMs = opts.reconcileSeconds * 1000;
  const pruneEveryMs = opts.pruneEveryMs ?? 3_600_000;
  let lastReconcile = now();
  let lastPrune = now();
  const armAt = async (at: number) => {
    const current = await opts.storage.getAlarm();
    if (current === null || current > at) await opts.storage.setAlarm(at);
  };
  return {
    /** After each request: a write arms the cache save; the next reconcile is always armed. */
    async afterRequest(req: Request): Promise<void> {
      const write = req.method !== 'GET' && req.method !== 'HEAD';
      await armAt(write ? now() + opts.cacheSaveSeconds * 1000 : lastReconcile + reconcileMs);
    },
    /** The alarm: save the cache; reconcile when due, else wait for the reconcile that is. */
    async alarm(): Promise<void> {
      await opts.notes.drain();
      await opts.notes.saveCache();
      if (now() - lastReconcile < reconcileMs) {
        await armAt(lastReconcile + reconcileMs);
        return;
      }
      lastReconcile = now();
      const changed = await opts.notes.reconcile();
      opts.logger.debug('reconcile', { trigger: 'alarm', changed });
      if (changed) await opts.notes.saveCache();
      if (opts.prune && now() - lastPrune >= pruneEveryMs) {
        lastPrune = now();
        try {
          const r = await opts.prune();
          if (r.versions || r.trash) opts.logger.info('history pruned', r);
        } catch (err) {
          opts.logger.warn('history prune failed', { error: String(err) });
        }
      }
    },
  };
}
