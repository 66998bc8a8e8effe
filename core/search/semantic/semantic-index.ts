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
export function createSemanticIndex(deps: SemanticDeps): SemanticIndex {
  return new SemanticIndex(deps);
}

/**
 * The index's state machine: `sync` runs one pass at a time (a change during a pass asks for
 * another), a failing provider sets `error` and schedules a retry with a doubling delay.
 */
export class SemanticIndex {
  /** The configured model. */
  readonly model: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private data: SemanticData;
  private current: SemanticStatus;
  private running: Promise<void> | null = null;
  private dirty = false;
  private stopped = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryDelay: number;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: SemanticDeps) {
    this.model = deps.embeddings.model;
    this.batchSize = deps.batchSize ?? 32;
    this.timeoutMs = deps.timeoutMs ?? 60_000;
    this.retryDelay = deps.retryMs ?? 5_000;
    this.data = { model: this.model, notes: new Map(), vectors: new Map() };
    this.current = { state: 'starting', model: this.model, done: 0, total: 0 };
  }

  /** Progress of the background embedding. */
  status(): SemanticStatus {
    return this.current;
  }

  /** Loads the stored index, starts embedding in the background, and follows note changes. */
  async start(): Promise<void> {
    this.data = await loadSemantic(this.deps.state, this.model);
    this.unsubscribe = this.deps.notes.subscribe(() => void this.sync());
    void this.sync();
  }

  /** Runs (or joins) a sync and waits until it ends: every passage embedded, or the provider failed. */
  sync = (): Promise<void> => {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.dirty = true;
      return this.running;
    }
    this.running = this.passes().finally(() => {
      this.running = null;
    });
    return this.running;
  };

  /** Stops following changes and retrying; embedding in flight ends after its batch. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /**
   * The best passage of each note nearest to `query`, best first, among the notes `see` accepts
   * (all without it). Rejects when the provider fails.
   */
  async search(query: string, limit: number, see?: (path: string) => boolean): Promise<PassageHit[]> {
    const [v] = await this.deps.embeddings.embed([query], AbortSignal.timeout(this.timeoutMs));
    if (!v) throw new Error('the provider answered no vector');
    return this.nearest(normalize(v), limit, null, see);
  }

  /** The notes nearest to the note at `path` (its passages' mean), best first; [] when it has no vectors. */
  related(path: string, limit: number, see?: (path: string) => boolean): PassageHit[] {
    const { data } = this;
    const own = data.notes.get(path)?.passages.flatMap((p) => data.vectors.get(p.hash) ?? []) ?? [];
    if (!own.length) return [];
    const dims = own[0]!.q.length;
    const mean = new Array<number>(dims).fill(0);
    for (const v of own) for (let i = 0; i < dims; i++) mean[i]! += (v.q[i] ?? 0) * v.scale;
    return this.nearest(normalize(mean), limit, path, see);
  }

  /** Whether the note at `path` has vectors. */
  has(path: string): boolean {
    return (this.data.notes.get(path)?.passages ?? []).some((p) => this.data.vectors.has(p.hash));
  }

  /** Passes until no change arrived during the last, or one failed (then a retry is scheduled). */
  private async passes(): Promise<void> {
    do {
      this.dirty = false;
      try {
        await this.syncOnce();
        this.retryDelay = this.deps.retryMs ?? 5_000;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.current = { state: 'error', model: this.model, ...this.count(), error: message };
        this.deps.logger?.warn('embeddings provider failed; semantic search uses what is indexed', {
          error: message,
        });
        this.scheduleRetry();
        break;
      }
    } while (this.dirty && !this.stopped);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.sync();
    }, this.retryDelay);
    (this.retryTimer as { unref?: () => void }).unref?.();
    this.retryDelay = Math.min(this.retryDelay * 2, 300_000);
  }

  private count(): { total: number; done: number } {
    let total = 0;
    let done = 0;
    for (const e of this.data.notes.values()) {
      total += e.passages.length;
      for (const p of e.passages) if (this.data.vectors.has(p.hash)) done++;
    }
    return { total, done };
  }

  private async embed(texts: string[]): Promise<QVector[]> {
    const vs = await this.deps.embeddings.embed(texts, AbortSignal.timeout(this.timeoutMs));
    if (vs.length !== texts.length)
      throw new Error(`the provider answered ${vs.length} vectors for ${texts.length} texts`);
    return vs.map((v) => quantize(v));
  }

  /** Brings the index in line with the vault; embeds what is missing. */
  private async syncOnce(): Promise<void> {
    const { data, deps } = this;
    const texts = await this.changedPassages();
    await this.fillMissing(texts);
    this.current = { state: 'embedding', model: this.model, ...this.count() };
    const pending = [...texts].filter(([h]) => !data.vectors.has(h));
    for (let i = 0; i < pending.length && !this.stopped; i += this.batchSize) {
      const batch = pending.slice(i, i + this.batchSize);
      const vs = await this.embed(batch.map(([, t]) => t));
      batch.forEach(([h], j) => {
        data.vectors.set(h, vs[j]!);
      });
      this.current = { ...this.current, ...this.count() };
    }
    const used = new Set([...data.notes.values()].flatMap((e) => e.passages.map((p) => p.hash)));
    for (const h of [...data.vectors.keys()]) if (!used.has(h)) data.vectors.delete(h);
    if (deps.state) await saveSemantic(deps.state, data);
    this.current = { state: 'ready', model: this.model, ...this.count() };
  }

  /**
   * Splits the notes whose checksum changed, forgets notes gone, and returns the texts to embed
   * by passage hash ('' for a hash known only from the stored index, filled by `fillMissing`).
   */
  private async changedPassages(): Promise<Map<string, string>> {
    const { data } = this;
    const { notes } = this.deps;
    const seen = new Set<string>();
    const texts = new Map<string, string>();
    for (const item of notes.list().items) {
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
    return texts;
  }

  /** Texts for hashes known only from the stored index (their note is read again). */
  private async fillMissing(texts: Map<string, string>): Promise<void> {
    const want = new Set([...texts].filter(([, t]) => t === '').map(([h]) => h));
    if (!want.size) return;
    for (const [path, e] of this.data.notes) {
      if (!e.passages.some((p) => want.has(p.hash))) continue;
      const note = await this.deps.notes.get(path).catch(() => null);
      for (const p of note ? splitPassages(path, note.title, note.content) : []) {
        if (want.has(p.hash)) texts.set(p.hash, embedText(note!.title, p.heading, p.text));
      }
    }
    for (const [h, t] of texts) if (t === '') texts.delete(h);
  }

  private nearest(
    query: Float32Array,
    limit: number,
    skip: string | null,
    see?: (path: string) => boolean,
  ): PassageHit[] {
    const best: PassageHit[] = [];
    for (const [path, e] of this.data.notes) {
      if (path === skip || (see && !see(path))) continue;
      let top: PassageHit | null = null;
      e.passages.forEach((p, n) => {
        const v = this.data.vectors.get(p.hash);
        if (!v) return;
        const score = cosine(v, query);
        if (!top || score > top.score) top = { path, heading: p.heading, n, score };
      });
      if (top) best.push(top);
    }
    return best.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1)).slice(0, limit);
  }
}
