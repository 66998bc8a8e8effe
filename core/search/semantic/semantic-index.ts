/**
 * Semantic search over passages: notes are split (passages.ts), embedded in the background
 * through the `Embeddings` port in batches, kept as int8 vectors (vectors.ts, store.ts), and
 * searched by cosine similarity. Only passages whose text changed are embedded again. A failing
 * provider leaves the index as it was and is retried with a growing delay.
 */
import type { NoteService } from '../../notes/service.ts';
import type { Embeddings, Logger, StateStore } from '../../ports.ts';
import { embedText, splitPassages } from './passages.ts';
import { loadSemantic, type SemanticData, saveSemantic } from './store.ts';
import { cosine, normalize, type QVector, quantize } from './vectors.ts';

/** Progress of the background embedding, shown in `GET /api/v1/health`. */
export interface SemanticStatus {
  /** `embedding` while work is pending, `ready` when every passage has a vector, `error` while the provider fails. */
  state: 'starting' | 'embedding' | 'ready' | 'error';
  model: string;
  /** Passages with a vector, and passages in all. */
  done: number;
  total: number;
  /** The provider's last failure (no keys), while `state` is `error`. */
  error?: string;
}

/** A passage found by vector similarity. */
export interface PassageHit {
  path: string;
  heading: string;
  /** The passage's position in the note. */
  n: number;
  /** Cosine similarity, -1 to 1. */
  score: number;
}

export interface SemanticDeps {
  notes: NoteService;
  embeddings: Embeddings;
  state?: StateStore;
  logger?: Logger;
  /** Passages per provider call (default 32). */
  batchSize?: number;
  /** First retry delay after a provider failure, in ms (default 5,000; doubles up to 5 minutes). */
  retryMs?: number;
  /** Longest wait for one provider call, in ms (default 60,000). */
  timeoutMs?: number;
}

/** Builds the semantic index; `start()` it once the note service is loaded. */
export function createSemanticIndex(deps: SemanticDeps) {
  const { notes, embeddings, logger } = deps;
  const batchSize = deps.batchSize ?? 32;
  const timeoutMs = deps.timeoutMs ?? 60_000;
  let data: SemanticData = { model: embeddings.model, notes: new Map(), vectors: new Map() };
  let status: SemanticStatus = { state: 'starting', model: embeddings.model, done: 0, total: 0 };
  let running: Promise<void> | null = null;
  let dirty = false;
  let stopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let retryDelay = deps.retryMs ?? 5_000;
  let unsubscribe: (() => void) | null = null;

  const count = () => {
    let total = 0;
    let done = 0;
    for (const e of data.notes.values()) {
      total += e.passages.length;
      for (const p of e.passages) if (data.vectors.has(p.hash)) done++;
    }
    return { total, done };
  };

  const embed = async (texts: string[]): Promise<QVector[]> => {
    const vs = await embeddings.embed(texts, AbortSignal.timeout(timeoutMs));
    if (vs.length !== texts.length)
      throw new Error(`the provider answered ${vs.length} vectors for ${texts.length} texts`);
    return vs.map((v) => quantize(v));
  };

  /** Brings the index in line with the vault; embeds what is missing. */
  const syncOnce = async (): Promise<void> => {
    const items = notes.list().items;
    const seen = new Set<string>();
    const texts = new Map<string, string>();
    for (const item of items) {
      seen.add(item.path);
      const checksum = notes.checksumOf(item.path) ?? '';
      if (data.notes.get(item.path)?.checksum === checksum) continue;
      const note = await notes.get(item.path).catch(() => null);
      if (!note) continue;
      const ps = splitPassages(note.path, note.title, note.content);
      data.notes.set(item.path, { checksum, passages: ps.map(({ heading, hash }) => ({ heading, hash })) });
      for (const p of ps)
        if (!data.vectors.has(p.hash)) texts.set(p.hash, embedText(note.title, p.heading, p.text));
    }
    for (const path of [...data.notes.keys()]) if (!seen.has(path)) data.notes.delete(path);
    // Passages of notes indexed earlier whose vectors are missing (a failed run).
    for (const e of data.notes.values()) {
      for (const p of e.passages) if (!data.vectors.has(p.hash) && !texts.has(p.hash)) texts.set(p.hash, '');
    }
    await fillMissing(texts);
    status = { state: 'embedding', model: embeddings.model, ...count() };
    const pending = [...texts].filter(([h]) => !data.vectors.has(h));
    for (let i = 0; i < pending.length && !stopped; i += batchSize) {
      const batch = pending.slice(i, i + batchSize);
      const vs = await embed(batch.map(([, t]) => t));
      batch.forEach(([h], j) => {
        data.vectors.set(h, vs[j]!);
      });
      status = { ...status, ...count() };
    }
    const used = new Set([...data.notes.values()].flatMap((e) => e.passages.map((p) => p.hash)));
    for (const h of [...data.vectors.keys()]) if (!used.has(h)) data.vectors.delete(h);
    if (deps.state) await saveSemantic(deps.state, data);
    status = { state: 'ready', model: embeddings.model, ...count() };
  };

  /** Texts for hashes known only from the stored index (their note is read again). */
  const fillMissing = async (texts: Map<string, string>): Promise<void> => {
    const want = new Set([...texts].filter(([, t]) => t === '').map(([h]) => h));
    if (!want.size) return;
    for (const [path, e] of data.notes) {
      if (!e.passages.some((p) => want.has(p.hash))) continue;
      const note = await notes.get(path).catch(() => null);
      for (const p of note ? splitPassages(path, note.title, note.content) : []) {
        if (want.has(p.hash)) texts.set(p.hash, embedText(note!.title, p.heading, p.text));
      }
    }
    for (const [h, t] of texts) if (t === '') texts.delete(h);
  };

  const sync = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      dirty = true;
      return running;
    }
    running = (async () => {
      do {
        dirty = false;
        try {
          await syncOnce();
          retryDelay = deps.retryMs ?? 5_000;
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          status = { state: 'error', model: embeddings.model, ...count(), error: message };
          logger?.warn('embeddings provider failed; semantic search uses what is indexed', {
            error: message,
          });
          scheduleRetry();
          break;
        }
      } while (dirty && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  const scheduleRetry = () => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void sync();
    }, retryDelay);
    (retryTimer as { unref?: () => void }).unref?.();
    retryDelay = Math.min(retryDelay * 2, 300_000);
  };

  return {
    /** The configured model. */
    model: embeddings.model,

    /** Progress of the background embedding. */
    status: (): SemanticStatus => status,

    /** Loads the stored index, starts embedding in the background, and follows note changes. */
    async start(): Promise<void> {
      data = await loadSemantic(deps.state, embeddings.model);
      unsubscribe = notes.subscribe(() => void sync());
      void sync();
    },

    /** Runs (or joins) a sync and waits until it ends: every passage embedded, or the provider failed. */
    sync,

    /** Stops following changes and retrying; embedding in flight ends after its batch. */
    stop(): void {
      stopped = true;
      unsubscribe?.();
      if (retryTimer) clearTimeout(retryTimer);
    },

    /**
     * The best passage of each note nearest to `query`, best first, among the notes `see` accepts
     * (all without it). Rejects when the provider fails.
     */
    async search(query: string, limit: number, see?: (path: string) => boolean): Promise<PassageHit[]> {
      const [v] = await embeddings.embed([query], AbortSignal.timeout(timeoutMs));
      if (!v) throw new Error('the provider answered no vector');
      return nearest(normalize(v), limit, null, see);
    },

    /** The notes nearest to the note at `path` (its passages' mean), best first; [] when it has no vectors. */
    related(path: string, limit: number, see?: (path: string) => boolean): PassageHit[] {
      const own = data.notes.get(path)?.passages.flatMap((p) => data.vectors.get(p.hash) ?? []) ?? [];
      if (!own.length) return [];
      const dims = own[0]!.q.length;
      const mean = new Array<number>(dims).fill(0);
      for (const v of own) for (let i = 0; i < dims; i++) mean[i]! += (v.q[i] ?? 0) * v.scale;
      return nearest(normalize(mean), limit, path, see);
    },

    /** Whether the note at `path` has vectors. */
    has: (path: string): boolean =>
      (data.notes.get(path)?.passages ?? []).some((p) => data.vectors.has(p.hash)),
  };

  function nearest(
    query: Float32Array,
    limit: number,
    skip: string | null,
    see?: (path: string) => boolean,
  ): PassageHit[] {
    const best: PassageHit[] = [];
    for (const [path, e] of data.notes) {
      if (path === skip || (see && !see(path))) continue;
      let top: PassageHit | null = null;
      e.passages.forEach((p, n) => {
        const v = data.vectors.get(p.hash);
        if (!v) return;
        const score = cosine(v, query);
        if (!top || score > top.score) top = { path, heading: p.heading, n, score };
      });
      if (top) best.push(top);
    }
    return best.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
  }
}

export type SemanticIndex = ReturnType<typeof createSemanticIndex>;
