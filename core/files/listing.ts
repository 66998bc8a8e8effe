/**
 * The attachment listing: the vault walked at most once per `ttl`, kept current in between by
 * the service's own writes. When the walk is due, a list waits for it up to `waitMs` and
 * otherwise answers the last listing. A walk is one file-system call per folder and file in
 * sequence: behind a busy thread pool (writes syncing to disk) it took seconds, and every tree
 * request waited on it.
 */
import type { Clock, FileInfo, FileStore } from '../ports.ts';

/** A walk in progress, and the writes made since it began (applied to what it finds). */
interface Walk {
  done: Promise<Map<string, FileInfo>>;
  changes: [string, FileInfo | null][];
}

export class FileListing {
  /** The attachments as last listed, kept current by the writes; null before the first walk. */
  private known: { at: number; files: Map<string, FileInfo> } | null = null;
  private walk: Walk | null = null;

  constructor(
    private readonly store: FileStore,
    private readonly clock: Clock,
    private readonly ttl: number,
    private readonly waitMs: number,
  ) {}

  /** Records one write in the listing (and in the walk under way, if any). */
  changed(path: string, info: FileInfo | null): void {
    if (this.known) {
      if (info) this.known.files.set(path, info);
      else this.known.files.delete(path);
    }
    this.walk?.changes.push([path, info]);
  }

  /** The files, by path, as fresh as the ttl asks. */
  async files(): Promise<Map<string, FileInfo>> {
    const known = this.known;
    if (!known) return this.walkVault();
    if (this.clock.now() - known.at <= this.ttl) return known.files;
    const last = known.files;
    const fresh = this.walkVault();
    fresh.catch(() => {}); // a failed walk keeps the last listing; the next list tries again
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.waitMs);
    });
    return (await Promise.race([fresh.catch(() => null), late]).finally(() => clearTimeout(timer))) ?? last;
  }

  /** Walks the vault once (one walk at a time); the result replaces the listing. */
  private walkVault(): Promise<Map<string, FileInfo>> {
    if (this.walk) return this.walk.done;
    const at = this.clock.now();
    const w: Walk = { changes: [], done: Promise.resolve(new Map()) };
    w.done = this.store
      .list()
      .then((list) => {
        const files = new Map(list.map((f): [string, FileInfo] => [f.path, f]));
        for (const [p, info] of w.changes) {
          if (info) files.set(p, info);
          else files.delete(p);
        }
        this.known = { at, files };
        return files;
      })
      .finally(() => {
        if (this.walk === w) this.walk = null;
      });
    this.walk = w;
    return w.done;
  }
}
