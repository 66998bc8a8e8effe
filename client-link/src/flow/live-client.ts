/**
 * One editor's end of a live session (core/live): a Yjs document kept in sync with the server's
 * room over y-protocols' sync and awareness messages, plus the server's JSON notices. Transport-free:
 * the workspace wires it to a WebSocket (live-socket.ts), the tests to a `ws` socket or in process.
 */
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import type { LiveNotice } from '../../../core/live/types.ts';

export type { LiveNotice };

/** One editor's connection to a live session, over a WebSocket (live-socket.ts) or requests (live-poll.ts). */
export interface LiveSocket {
  client: LiveClient;
  /** Called once when the connection ends (by us, the server, or the network). */
  onClosed?: (code: number, reason: string) => void;
  close(): void;
}

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;

export class LiveClient {
  readonly doc = new Y.Doc();
  readonly text = this.doc.getText('content');
  readonly awareness = new awarenessProtocol.Awareness(this.doc);
  /** True once the server's state arrived (the text is the note's). */
  synced = false;
  /** Set by the server's hello. */
  readOnly = false;
  name = '';
  /** Updates sent so far, and how many of them the file holds (the server's `saved`). */
  sent = 0;
  acked = 0;
  /**
   * The text when the server last held every change of ours (synced, or a `saved` covering all we
   * sent): the base that a reconnect merges our unacknowledged typing from (`carryOver`).
   */
  settledText = '';
  /** Every notice, in order (tests read them). */
  readonly notices: LiveNotice[] = [];
  onNotice?: (n: LiveNotice) => void;
  onSynced?: () => void;

  constructor(private readonly send: (data: Uint8Array) => void) {
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin === this) return;
      const enc = encoding.createEncoder();
      encoding.writeVarUint(enc, MESSAGE_SYNC);
      syncProtocol.writeUpdate(enc, update);
      this.sent++;
      this.send(encoding.toUint8Array(enc));
    });
    this.awareness.on(
      'update',
      (c: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
        if (origin !== 'local') return;
        this.send(this.awarenessMessage([...c.added, ...c.updated, ...c.removed]));
      },
    );
  }

  /** Opens the exchange: our state vector, and our awareness state when one is set. */
  start(): void {
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, MESSAGE_SYNC);
    syncProtocol.writeSyncStep1(enc, this.doc);
    this.send(encoding.toUint8Array(enc));
    if (this.awareness.getLocalState()) this.send(this.awarenessMessage([this.doc.clientID]));
  }

  /** A message from the server: binary (sync, awareness) or a JSON notice. */
  receive(data: Uint8Array | string): void {
    if (typeof data === 'string') {
      const n = JSON.parse(data) as LiveNotice;
      if (n.type === 'hello') {
        this.readOnly = n.readOnly;
        this.name = n.name;
      } else if (n.type === 'saved') {
        this.acked = Math.max(this.acked, n.received);
        if (this.acked >= this.sent) this.settledText = this.text.toString();
      }
      this.notices.push(n);
      this.onNotice?.(n);
      return;
    }
    const dec = decoding.createDecoder(data);
    const type = decoding.readVarUint(dec);
    if (type === MESSAGE_AWARENESS) {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, decoding.readVarUint8Array(dec), this);
      return;
    }
    if (type !== MESSAGE_SYNC) return;
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, MESSAGE_SYNC);
    const sub = syncProtocol.readSyncMessage(dec, enc, this.doc, this);
    // Our answer to the server's step 1 (what it lacks of ours): sent unless empty. A read-only
    // editor has typed nothing, so its answer holds no change.
    if (encoding.length(enc) > 1 && !this.readOnly) {
      this.sent++;
      this.send(encoding.toUint8Array(enc));
    }
    if (sub === syncProtocol.messageYjsSyncStep2 && !this.synced) {
      this.synced = true;
      this.settledText = this.text.toString();
      this.onSynced?.();
    }
  }

  /** Our cursor and name for the others (y-codemirror.next reads `user`). */
  setUser(user: { name: string; color: string; colorLight?: string }): void {
    this.awareness.setLocalStateField('user', user);
  }

  /** True while some change of ours is not yet in the file (no `saved` covers it). */
  get unsaved(): boolean {
    return this.acked < this.sent;
  }

  destroy(): void {
    awarenessProtocol.removeAwarenessStates(this.awareness, [this.doc.clientID], 'local');
    this.awareness.destroy();
    this.doc.destroy();
  }

  private awarenessMessage(clients: number[]): Uint8Array {
    const enc = encoding.createEncoder();
    encoding.writeVarUint(enc, MESSAGE_AWARENESS);
    encoding.writeVarUint8Array(enc, awarenessProtocol.encodeAwarenessUpdate(this.awareness, clients));
    return encoding.toUint8Array(enc);
  }
}
