/**
 * One note open live: a Yjs document that its editors change together, kept equal to the note's
 * file. The file stays the truth: the document is written through the note service once typing
 * pauses (and when the last editor leaves, and on a stop), and every change of the file from
 * elsewhere enters the document as the smallest edit, merged with typing not saved yet.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { DomainError } from '../errors.ts';
import type { Logger } from '../ports.ts';
import type { DiskText, EditorInfo, LiveNotes, LivePeer } from './types.ts';
import { changeText, mergeTexts } from './y-text.ts';

/** The message types of y-websocket's framing, which y-protocols' providers speak. */
export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;

/** Origin of changes that came from the file (not typed by an editor of the room). */
const FROM_FILE = Symbol('file');

export interface RoomOptions {
  notes: LiveNotes;
  logger?: Logger;
  /** Quiet time after the last change before the document is written (default 1,000 ms). */
  debounceMs?: number;
  /** Longest time a change waits to be written while typing never pauses (default 5,000 ms). */
  maxWaitMs?: number;
  /** Milliseconds since the epoch (injected so tests can reason about the debounce). */
  now?: () => number;
  /** Called when the last editor left and the document was written: the service forgets the room. */
  onEmpty?: (room: LiveRoom) => void;
}

interface Editor extends EditorInfo {
  /** The awareness client ids this connection speaks for (removed when it leaves). */
  clients: Set<number>;
  /** Updates taken from this editor so far (sync step 2 and update messages). */
  received: number;
}

const hasContent = (update: Uint8Array): boolean => {
  const u = Y.decodeUpdate(update);
  return u.structs.length > 0 || u.ds.clients.size > 0;
};

/** Several authors of one pause, in the form core/history/author.ts names. */
export const actorOfAuthors = (authors: Iterable<string>): string => {
  const all = [...new Set(authors)].sort();
  return all.length === 1 ? all[0]! : `live:${all.join('|')}`;
};

export class LiveRoom {
  readonly doc = new Y.Doc();
  readonly text = this.doc.getText('content');
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  /** Writes of the document so far (tests and stats). */
  saves = 0;
  private readonly editors = new Map<LivePeer, Editor>();
  private readonly authors = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firstChangeAt: number | null = null;
  /** Reads and writes of the file, one at a time and in order. */
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    public path: string,
    /** What the file held when the document last matched it. */
    private disk: DiskText,
    private readonly opts: RoomOptions,
  ) {
    this.text.insert(0, disk.text);
    this.awareness.setLocalState(null);
    this.doc.on('update', (update: Uint8Array, origin: unknown) => this.onUpdate(update, origin));
    this.awareness.on(
      'update',
      (c: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) =>
        this.onAwareness(c, origin),
    );
  }

  /** Editors connected now. */
  get size(): number {
    return this.editors.size;
  }

  /** True when nothing typed waits to be written. */
  get settled(): boolean {
    return this.text.toString() === this.disk.text;
  }

  /** Adds an editor: it gets the document's state vector and who else is here, then a hello. */
  join(peer: LivePeer, info: EditorInfo): void {
    if (this.closed) throw new DomainError('NOT_READY', 'This live session is closing; join again.');
    this.editors.set(peer, { ...info, clients: new Set(), received: 0 });
    peer.notice({ type: 'hello', path: this.path, name: info.name, readOnly: info.readOnly });
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(enc, this.doc);
    peer.send(encoding.toUint8Array(enc));
    const others = [...this.awareness.getStates().keys()];
    if (others.length) peer.send(this.awarenessMessage(others));
  }

  /** The editors now, with what their tickets said of them. */
  editorsNow(): [LivePeer, EditorInfo][] {
    return [...this.editors.entries()];
  }

  /** Sends an editor away whose credential no longer allows what it joined for (4401). */
  evict(peer: LivePeer): Promise<void> {
    if (!this.editors.has(peer)) return Promise.resolve();
    peer.notice({ type: 'closed', reason: 'revoked' });
    peer.close(4401, 'revoked');
    return this.leave(peer);
  }

  /** A binary message from `peer` (sync or awareness). A read-only editor's changes are refused. */
  receive(peer: LivePeer, data: Uint8Array): void {
    const ed = this.editors.get(peer);
    if (!ed || this.closed) return;
    const dec = decoding.createDecoder(data);
    const type = decoding.readVarUint(dec);
    if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(dec), peer);
      return;
    }
    if (type !== MESSAGE_SYNC) return;
    const sub = decoding.readVarUint(dec);
    if (sub === syncProtocol.messageYjsSyncStep1) {
      const enc = encoding.createEncoder();
      encoding.writeVarUint(enc, MESSAGE_SYNC);
      syncProtocol.writeSyncStep2(enc, this.doc, decoding.readVarUint8Array(dec));
      peer.send(encoding.toUint8Array(enc));
      return;
    }
    const update = decoding.readVarUint8Array(dec);
    if (ed.readOnly) {
      if (hasContent(update))
        peer.notice({
          type: 'refused',
          code: 'FORBIDDEN',
          message: 'This key may read this note, not change it.',
        });
      return;
    }
    ed.received++;
    Y.applyUpdate(this.doc, update, peer);
    // An update that changed nothing (an empty sync answer) is acknowledged all the same.
    this.schedule();
  }

  /** Removes an editor; the last one out has the document written at once. */
  leave(peer: LivePeer): Promise<void> {
    const ed = this.editors.get(peer);
    if (!ed) return Promise.resolve();
    this.editors.delete(peer);
    if (ed.clients.size) awarenessProtocol.removeAwarenessStates(this.awareness, [...ed.clients], null);
    if (this.editors.size > 0) return Promise.resolve();
    return this.flush().then(() => {
      if (this.editors.size === 0) this.opts.onEmpty?.(this);
    });
  }

  /** The file changed (the note service said so): its change enters the document. */
  fileChanged(): Promise<void> {
    return this.queue(() => this.pull());
  }

  /** The note moved: the room follows it (its next write goes to the new path). */
  moved(to: string): void {
    this.path = to;
  }

  /** Writes the document now when it differs from the file. */
  flush(): Promise<void> {
    return this.queue(() => this.save());
  }

  /**
   * Closes the room: its document written first (unless the note is gone), then every editor told
   * why and disconnected.
   */
  async close(reason: 'deleted' | 'moved' | 'stopping', to?: string): Promise<void> {
    if (this.closed) return;
    if (reason !== 'deleted') await this.flush();
    this.closed = true;
    clearTimeout(this.timer);
    for (const peer of this.editors.keys()) {
      peer.notice(to ? { type: 'closed', reason, to } : { type: 'closed', reason });
      peer.close(reason === 'stopping' ? 1001 : 4404, reason);
    }
    this.editors.clear();
    this.awareness.destroy();
    this.doc.destroy();
  }

  private queue(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch((err: unknown) => {
      this.opts.logger?.warn('live document write failed', { path: this.path, error: String(err) });
    });
    return this.chain;
  }

  private onUpdate(update: Uint8Array, origin: unknown): void {
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, MESSAGE_SYNC);
    syncProtocol.writeUpdate(enc, update);
    const msg = encoding.toUint8Array(enc);
    for (const peer of this.editors.keys()) if (peer !== origin) peer.send(msg);
    const ed = this.editors.get(origin as LivePeer);
    if (ed) {
      this.authors.add(ed.by);
      this.schedule();
    }
  }

  private onAwareness(c: { added: number[]; updated: number[]; removed: number[] }, origin: unknown): void {
    const ed = this.editors.get(origin as LivePeer);
    if (ed) {
      for (const id of c.added) ed.clients.add(id);
      for (const id of c.removed) ed.clients.delete(id);
    }
    const changed = [...c.added, ...c.updated, ...c.removed];
    if (!changed.length) return;
    const msg = this.awarenessMessage(changed);
    for (const peer of this.editors.keys()) if (peer !== origin) peer.send(msg);
  }

  private awarenessMessage(clients: number[]): Uint8Array {
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(enc, awarenessProtocol.encodeAwarenessUpdate(this.awareness, clients));
    return encoding.toUint8Array(enc);
  }

  /** Arms the write: after a quiet `debounceMs`, and never later than `maxWaitMs` after the first change. */
  private schedule(): void {
    if (this.closed) return;
    const now = (this.opts.now ?? Date.now)();
    this.firstChangeAt ??= now;
    const quiet = this.opts.debounceMs ?? 1000;
    const latest = this.firstChangeAt + (this.opts.maxWaitMs ?? 5000);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), Math.max(0, Math.min(quiet, latest - now)));
  }

  /** Takes the file's change into the document, merged with what was typed since it last matched. */
  private absorb(base: string, now: DiskText): void {
    const cur = this.text.toString();
    const merged = mergeTexts(base, cur, now.text);
    changeText(this.text, cur, merged, FROM_FILE);
    this.disk = now;
    if (merged !== now.text) this.schedule();
  }

  private async pull(): Promise<void> {
    if (this.closed) return;
    const now = await this.opts.notes.read(this.path);
    if (now && now.checksum !== this.disk.checksum) this.absorb(this.disk.text, now);
  }

  private async save(): Promise<void> {
    clearTimeout(this.timer);
    this.firstChangeAt = null;
    if (this.closed) return;
    // A change of the file not told yet is merged here first, by the CRDT, not by the note service's lines.
    await this.pull();
    const text = this.text.toString();
    const received = new Map([...this.editors].map(([p, e]) => [p, e.received]));
    if (text === this.disk.text) {
      this.authors.clear();
      this.ack(received, this.disk.checksum);
      return;
    }
    const authors = [...this.authors];
    this.authors.clear();
    try {
      await this.opts.notes.write(
        this.path,
        text,
        this.disk.checksum,
        actorOfAuthors(authors.length ? authors : ['live']),
      );
    } catch (err) {
      // Not written: the authors wait for the next try, which the next change or this timer makes.
      for (const a of authors) this.authors.add(a);
      if (!(err instanceof DomainError && err.code === 'NOTE_NOT_FOUND')) this.schedule();
      throw err;
    }
    const now = await this.opts.notes.read(this.path);
    if (!now) return;
    this.absorb(text, now);
    this.saves++;
    this.ack(received, now.checksum);
  }

  /** Tells each editor how many of its updates the file now holds. */
  private ack(received: Map<LivePeer, number>, checksum: string): void {
    for (const [peer, n] of received)
      if (this.editors.has(peer)) peer.notice({ type: 'saved', checksum, received: n });
  }
}
