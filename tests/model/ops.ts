/**
 * The operations of the model-based test and their seeded generator. An operation names its paths
 * and texts outright (no reference to the state it was drawn in), so any subsequence of a run can
 * be replayed: an operation whose precondition does not hold in the replay's model is skipped
 * (`applicable`). That is what lets the shrinker drop operations freely.
 */
import { createRng, type Rng } from '../reliability/scenarios/rng.ts';
import { folderOf, nameOf, sha256 as sha, type VaultModel } from './model.ts';

export type Via = 'rest' | 'mcp';

/** A change made on disk behind the server's back (while it runs, or while it is down). */
export type DiskOp =
  | { t: 'disk-write'; path: string; content: string }
  | { t: 'disk-rename'; from: string; to: string }
  | { t: 'disk-remove'; path: string };

export type WriteOp =
  | { t: 'create'; via: Via; path: string; content: string }
  | { t: 'put'; via: Via; path: string; content: string }
  | { t: 'patch'; via: Via; path: string; text: string }
  | { t: 'move'; via: Via; from: string; to: string }
  | { t: 'delete'; via: Via; path: string }
  | { t: 'restore'; path: string; checksum: string };

export type Op =
  | WriteOp
  | DiskOp
  | {
      t: 'restart';
      how: 'term' | 'kill';
      /** With `kill`: a create or put sent just before the SIGKILL, cut at `killAfterMs` or not. */
      inFlight?: { t: 'create' | 'put'; path: string; content: string };
      killAfterMs: number;
      /** Changes made on disk while the server is down. */
      downtime: DiskOp[];
    };

const FOLDERS = ['', 'a', 'a/b', 'c'];
const NAMES = Array.from({ length: 14 }, (_, i) => `n${i}`);
const VOCAB = 'apple river stone cloud maple ember quartz lantern harbor meadow copper violet'.split(' ');
const TAGS = 'red blue green gold'.split(' ');

const pathIn = (folder: string, name: string) => (folder ? `${folder}/${name}.md` : `${name}.md`);

/** Draws operations from a seed; `unique` words make each write findable by search. */
export class OpGenerator {
  private rng: Rng;
  private counter = 0;
  private restarts = 0;
  /**
   * `killEvery`: every n-th restart is a SIGKILL (default 3, a third; 0 none); `downtime`: files
   * change while the server is down (default true).
   */
  constructor(
    private seed: number,
    private opts: { killEvery?: number; downtime?: boolean } = {},
  ) {
    this.rng = createRng(seed);
  }

  /** A word no other write of this run contains (letters only, so one search term). */
  unique(): string {
    let n = ++this.counter;
    let s = '';
    do {
      s += String.fromCharCode(97 + (n % 26));
      n = Math.floor(n / 26);
    } while (n > 0);
    return `zq${(this.seed % 9973).toString(36)}x${s}`;
  }

  content(model: VaultModel, self: string): string {
    const r = this.rng;
    const lines: string[] = [];
    const pickTags = () => TAGS.filter(() => r.chance(0.3));
    const fm = r.chance(0.3) ? pickTags() : null;
    if (fm) lines.push('---', `tags: [${fm.join(', ')}]`, '---');
    if (r.chance(0.6)) lines.push(`# ${r.pick(VOCAB)} ${r.pick(VOCAB)}`, '');
    const tokens = [this.unique()];
    for (let i = r.int(1, 6); i > 0; i--) tokens.push(r.pick(VOCAB));
    for (const t of TAGS) if (!fm?.includes(t) && r.chance(0.2)) tokens.push(`#${t}`);
    const linked = new Set<string>();
    for (let i = r.int(0, 3); i > 0; i--) {
      const name = r.pick(NAMES);
      if (name !== nameOf(self) && !linked.has(name)) {
        linked.add(name);
        tokens.push(`[[${name}]]`);
      }
    }
    for (let i = tokens.length - 1; i > 0; i--) {
      const j = r.int(0, i);
      [tokens[i], tokens[j]] = [tokens[j]!, tokens[i]!];
    }
    lines.push(tokens.slice(0, 4).join(' '));
    if (tokens.length > 4) lines.push(tokens.slice(4).join(' '));
    void model;
    return `${lines.join('\n')}\n`;
  }

  private freeName(model: VaultModel, reserved?: string): string | null {
    const free = NAMES.filter((n) => n !== reserved && model.nameFree(n));
    return free.length ? this.rng.pick(free) : null;
  }

  private otherFolder(path: string): string {
    const here = folderOf(path);
    return this.rng.pick(FOLDERS.filter((f) => f !== here));
  }

  private disk(model: VaultModel, reserved?: string): DiskOp {
    const r = this.rng;
    const paths = model.paths();
    const pick = r.next();
    if (paths.length === 0 || pick < 0.4) {
      const name = this.freeName(model, reserved);
      const path = name ? pathIn(r.pick(FOLDERS), name) : r.pick(paths);
      return { t: 'disk-write', path, content: this.content(model, path) };
    }
    const path = r.pick(paths);
    if (pick < 0.65) return { t: 'disk-write', path, content: this.content(model, path) };
    if (pick < 0.85)
      return { t: 'disk-rename', from: path, to: pathIn(this.otherFolder(path), nameOf(path)) };
    return { t: 'disk-remove', path };
  }

  /** The next operation for a vault in `model`'s state: a restart when `restart`. */
  next(model: VaultModel, restart: boolean): Op {
    const r = this.rng;
    if (restart) {
      const every = this.opts.killEvery ?? 3;
      const how = every > 0 && ++this.restarts % every === 0 ? 'kill' : 'term';
      const changes = this.opts.downtime !== false && r.chance(0.5) ? r.int(1, 3) : 0;
      let inFlight: Extract<Op, { t: 'restart' }>['inFlight'];
      if (how === 'kill' && r.chance(0.8)) {
        const paths = model.paths();
        const name = this.freeName(model);
        if (name && (paths.length === 0 || r.chance(0.4))) {
          const path = pathIn(r.pick(FOLDERS), name);
          inFlight = { t: 'create', path, content: this.content(model, path) };
        } else if (paths.length) {
          const path = r.pick(paths);
          inFlight = { t: 'put', path, content: this.content(model, path) };
        }
      }
      // The changes while down are drawn one after the other on a scratch copy, each seeing the
      // ones before, and never reusing the name of a create in flight (which may or may not land):
      // names stay unique, and a rename never meets a path taken meanwhile.
      const scratch = model.clone();
      const reserved = inFlight?.t === 'create' ? nameOf(inFlight.path) : undefined;
      const downtime: DiskOp[] = [];
      for (let i = 0; i < changes; i++) {
        const d = this.disk(scratch, reserved);
        downtime.push(d);
        if (d.t === 'disk-write') scratch.write(d.path, d.content, false);
        else if (d.t === 'disk-rename') scratch.move(d.from, d.to, 'disk');
        else scratch.remove(d.path, 'disk');
      }
      return { t: 'restart', how, inFlight, killAfterMs: r.int(0, 40), downtime };
    }
    const via: Via = r.chance(0.3) ? 'mcp' : 'rest';
    const paths = model.paths();
    const pick = r.next();
    if (pick < 0.12) return this.disk(model);
    if (paths.length < 3 || pick < 0.32) {
      const name = this.freeName(model);
      if (name) {
        const path = pathIn(r.pick(FOLDERS), name);
        return { t: 'create', via, path, content: this.content(model, path) };
      }
    }
    const restorable = model.trash.filter(
      (t) => !t.optional && !model.notes.has(t.path) && model.nameFree(nameOf(t.path)),
    );
    if (pick < 0.4 && restorable.length) {
      const item = r.pick(restorable);
      return { t: 'restore', path: item.path, checksum: sha(item.content) };
    }
    if (paths.length === 0) return this.disk(model);
    const path = r.pick(paths);
    if (pick < 0.6) return { t: 'put', via, path, content: this.content(model, path) };
    if (pick < 0.75) {
      const text = [this.unique(), r.pick(VOCAB)].join(' ');
      return { t: 'patch', via, path, text };
    }
    if (pick < 0.88) return { t: 'move', via, from: path, to: pathIn(this.otherFolder(path), nameOf(path)) };
    return { t: 'delete', via, path };
  }
}

/** Whether `op` can run on `model` (a replayed subsequence skips the ones that cannot). */
export function applicable(model: VaultModel, op: Op): boolean {
  switch (op.t) {
    case 'create':
      return !model.notes.has(op.path) && model.nameFree(nameOf(op.path));
    case 'put':
    case 'patch':
    case 'delete':
    case 'disk-remove':
      return model.notes.has(op.path);
    case 'disk-write':
      return model.notes.has(op.path) || model.nameFree(nameOf(op.path));
    case 'move':
    case 'disk-rename':
      return model.notes.has(op.from) && !model.notes.has(op.to);
    case 'restore':
      return (
        !model.notes.has(op.path) &&
        model.nameFree(nameOf(op.path)) &&
        model.trash.some((t) => !t.optional && t.path === op.path && sha(t.content) === op.checksum)
      );
    case 'restart':
      return true;
  }
}

/** The text a patch (append to the document) leaves: the generator's notes end in a line break. */
export const patched = (content: string, text: string) => `${content}${text}\n`;

/** The text a put leaves: without a frontmatter block of its own, the note's block is kept. */
export function replaced(old: string, content: string): string {
  if (content.startsWith('---\n') || !old.startsWith('---\n')) return content;
  return old.slice(0, old.indexOf('\n---\n', 3) + 5) + content;
}

/** One line per operation, for the failure report. */
export function describe(op: Op): string {
  switch (op.t) {
    case 'create':
    case 'put':
      return `${op.t} ${op.path} via ${op.via} ${JSON.stringify(op.content)}`;
    case 'patch':
      return `patch ${op.path} via ${op.via} append ${JSON.stringify(op.text)}`;
    case 'move':
      return `move ${op.from} -> ${op.to} via ${op.via}`;
    case 'delete':
      return `delete ${op.path} via ${op.via}`;
    case 'restore':
      return `restore ${op.path} from the trash`;
    case 'disk-write':
      return `disk: write ${op.path} ${JSON.stringify(op.content)}`;
    case 'disk-rename':
      return `disk: rename ${op.from} -> ${op.to}`;
    case 'disk-remove':
      return `disk: remove ${op.path}`;
    case 'restart':
      return `restart (${op.how === 'kill' ? `SIGKILL after ${op.killAfterMs} ms` : 'SIGTERM'}${
        op.inFlight ? `, ${op.inFlight.t} ${op.inFlight.path} in flight` : ''
      }${op.downtime.length ? `; while down: ${op.downtime.map(describe).join('; ')}` : ''})`;
  }
}
