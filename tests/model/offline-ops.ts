/**
 * The operations of the offline property test (offline-run.ts) and their seeded generator. Like the
 * model test's (ops.ts), an operation names what it does outright (which client, which note, where
 * in the text as a fraction, the new word), so any subsequence of a run replays: an operation that
 * no longer applies (a note the client never saw) is skipped. That lets the shrinker drop freely.
 */
import { createRng, type Rng } from '../reliability/scenarios/rng.ts';

/** An edit of a text: a word put into a line, a new line, or a line deleted (`at`, `word`: 0..1). */
export interface Edit {
  kind: 'word' | 'line' | 'delete';
  at: number;
  word: number;
  /** The unique word an insertion adds. */
  token: string;
}

export type OfflineOp =
  /** Client `c` edits `path` from its view: a write with a base online, a draft offline. */
  | { t: 'edit'; c: number; path: string; edit: Edit }
  /** Client `c` makes a note at `path`: a create under a free name online, a draft offline. */
  | { t: 'new'; c: number; path: string; token: string }
  /** Client `c` loses the server (its writes become drafts). */
  | { t: 'offline'; c: number }
  /** Client `c` reaches the server again and sends its drafts. */
  | { t: 'reconnect'; c: number }
  /** Client `c` reads `path` again. */
  | { t: 'read'; c: number; path: string }
  /** Someone edits the file on disk behind the server's back. */
  | { t: 'disk'; path: string; edit: Edit }
  /** Someone deletes the file on disk (drafts of it come back as new notes). */
  | { t: 'disk-remove'; path: string }
  /**
   * The server stops (SIGTERM, or SIGKILL `killAfterMs` after client `inFlight.c` sent an edit),
   * `down` happens while it is stopped (edits fail and become drafts; disk edits), then it starts.
   */
  | {
      t: 'restart';
      how: 'term' | 'kill';
      killAfterMs: number;
      inFlight?: { c: number; path: string; edit: Edit };
      down: OfflineOp[];
    }
  /** Every client reconnects and sends everything; then every view, the disk and the words are checked. */
  | { t: 'quiesce' };

export const CLIENTS = 3;
/** The notes there from the start, known to every client. */
export const SEED_NOTES = ['n0.md', 'n1.md', 'a/n2.md', 'a/n3.md'];
/** The names new notes are given: few, so two clients often pick the same one. */
export const NEW_NAMES = ['new/m0.md', 'new/m1.md', 'new/m2.md'];
const VOCAB = 'apple river stone cloud maple ember quartz lantern harbor meadow copper violet'.split(' ');

/** The first text of a seed note. */
export const seedText = (path: string, rng: Rng) =>
  `# ${path.replace(/^.*\//, '').replace(/\.md$/, '')}\n\n${Array.from({ length: 4 }, () =>
    Array.from({ length: 5 }, () => rng.pick(VOCAB)).join(' '),
  ).join('\n')}\n`;

/** Whether a line is a conflict line: never edited here, so the copy stays linked. */
const isConflictLine = (l: string) => l.startsWith('> [!warning] Conflict:');

/** The text after `edit`, and the unique words the edit removed. */
export function applyEdit(text: string, edit: Edit): { text: string; removed: string[] } {
  const lines = text.split('\n');
  // The editable lines: not the title, not a conflict line, not the empty line a text ends with.
  const editable = lines
    .map((_, i) => i)
    .filter((i) => i > 0 && !isConflictLine(lines[i]!) && !(i === lines.length - 1 && lines[i] === ''));
  const pickIn = (n: number, f: number) => Math.min(n - 1, Math.floor(f * n));
  if (edit.kind === 'delete') {
    if (editable.length < 2) return { text, removed: [] };
    const i = editable[pickIn(editable.length, edit.at)]!;
    const removed = lines[i]!.match(/zq[a-z0-9]+/g) ?? [];
    lines.splice(i, 1);
    return { text: lines.join('\n'), removed };
  }
  if (edit.kind === 'word' && editable.length) {
    const i = editable[pickIn(editable.length, edit.at)]!;
    const words = lines[i]!.split(' ');
    words.splice(pickIn(words.length + 1, edit.word), 0, edit.token);
    lines[i] = words.join(' ');
    return { text: lines.join('\n'), removed: [] };
  }
  const at = editable.length
    ? editable[pickIn(editable.length, edit.at)]! + 1
    : Math.max(1, lines.length - 1);
  lines.splice(at, 0, `${edit.token} ${VOCAB[Math.floor(edit.word * VOCAB.length) % VOCAB.length]}`);
  return { text: lines.join('\n'), removed: [] };
}

/** What the generator needs to know of the run so far. */
export interface GenState {
  online: boolean[];
  /** The paths each client has in view (or as a draft). */
  known: Set<string>[];
}

/** Draws operations from a seed; every insertion carries a word no other has. */
export class OfflineGenerator {
  private rng: Rng;
  private counter = 0;
  private restarts = 0;
  constructor(private seed: number) {
    this.rng = createRng(seed);
  }

  private token(): string {
    return `zq${(this.seed % 9973).toString(36)}t${(++this.counter).toString(36)}`;
  }

  private edit(): Edit {
    const r = this.rng;
    const p = r.next();
    return {
      kind: p < 0.45 ? 'word' : p < 0.8 ? 'line' : 'delete',
      at: r.next(),
      word: r.next(),
      token: this.token(),
    };
  }

  /** The next operation; `restart` when the run wants one now. */
  next(s: GenState, restart: boolean): OfflineOp {
    const r = this.rng;
    if (restart) {
      // Every second restart is a SIGKILL.
      const how = ++this.restarts % 2 === 0 ? 'kill' : 'term';
      const online = s.online.flatMap((on, c) => (on ? [c] : []));
      const c = online.length ? r.pick(online) : null;
      const down: OfflineOp[] = [];
      for (let i = r.int(1, 4); i > 0; i--) down.push(this.plain(s, true));
      return {
        t: 'restart',
        how,
        killAfterMs: r.int(0, 40),
        ...(how === 'kill' && c !== null
          ? { inFlight: { c, path: r.pick([...s.known[c]!]), edit: this.edit() } }
          : {}),
        down,
      };
    }
    return this.plain(s, false);
  }

  private plain(s: GenState, down: boolean): OfflineOp {
    const r = this.rng;
    const c = r.int(0, CLIENTS - 1);
    const p = r.next();
    if (p < 0.12 && !down) return s.online[c] ? { t: 'offline', c } : { t: 'reconnect', c };
    if (p < 0.2) return { t: 'disk', path: r.pick(SEED_NOTES), edit: this.edit() };
    if (p < 0.22) return { t: 'disk-remove', path: r.pick(SEED_NOTES) };
    if (p < 0.3) return { t: 'new', c, path: r.pick(NEW_NAMES), token: this.token() };
    if (p < 0.36 && !down) return { t: 'read', c, path: r.pick([...s.known[c]!]) };
    return { t: 'edit', c, path: r.pick([...s.known[c]!]), edit: this.edit() };
  }
}

/** One line per operation, for the failure report. */
export function describeOp(op: OfflineOp): string {
  const e = (x: Edit) =>
    `${x.kind}${x.kind === 'delete' ? '' : ` ${x.token}`} at ${x.at.toFixed(3)}${x.kind === 'word' ? `/${x.word.toFixed(3)}` : ''}`;
  switch (op.t) {
    case 'edit':
      return `client ${op.c} edits ${op.path}: ${e(op.edit)}`;
    case 'new':
      return `client ${op.c} makes ${op.path} with ${op.token}`;
    case 'offline':
      return `client ${op.c} goes offline`;
    case 'reconnect':
      return `client ${op.c} reconnects and sends its drafts`;
    case 'read':
      return `client ${op.c} reads ${op.path}`;
    case 'disk':
      return `disk edit of ${op.path}: ${e(op.edit)}`;
    case 'disk-remove':
      return `${op.path} deleted on disk`;
    case 'restart':
      return `restart (${op.how}${op.inFlight ? `, ${op.killAfterMs} ms after client ${op.inFlight.c} sent an edit of ${op.inFlight.path}: ${e(op.inFlight.edit)}` : ''}); while down: ${
        op.down.map(describeOp).join('; ') || 'nothing'
      }`;
    case 'quiesce':
      return 'every client reconnects; views, disk and words checked';
  }
}
