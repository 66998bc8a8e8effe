/** The live editing ports: the transport's end of one connection, and what a room needs of the notes. */
import type { Principal } from '../ports.ts';

/** A notice to one editor, sent as a JSON text message beside the binary Yjs messages. */
export type LiveNotice =
  | { type: 'hello'; path: string; name: string; readOnly: boolean }
  /** The file was written; `received`: how many of this editor's updates it holds (all before them too). */
  | { type: 'saved'; checksum: string; received: number }
  | { type: 'refused'; code: 'FORBIDDEN'; message: string }
  | { type: 'closed'; reason: 'deleted' | 'moved' | 'stopping' | 'revoked'; to?: string };

/**
 * One editor's connection, as the transport (a WebSocket, the relay's tunnel) offers it. Sends
 * never throw: a connection that is gone drops them, and the transport calls `leave` once.
 */
export interface LivePeer {
  /** A binary message of the Yjs sync and awareness protocols (y-protocols), as y-websocket frames them. */
  send(data: Uint8Array): void;
  /** A notice (JSON text). */
  notice(n: LiveNotice): void;
  /** Ends the connection (WebSocket close codes: 1000 normal, 1001 going away, 4404 gone). */
  close(code: number, reason: string): void;
}

/** The file's text as the note service holds it (frontmatter included) and its checksum. */
export interface DiskText {
  text: string;
  checksum: string;
}

/** What a room needs of the notes: its file's text, a write through the note service, its events. */
export interface LiveNotes {
  /** The note's whole text and checksum; null when there is no note at `path`. */
  read(path: string): Promise<DiskText | null>;
  /**
   * Writes `text` as the note at `path`, made from the version `base` (the note service merges
   * when the file moved on meanwhile), credited to `by`. NOTE_NOT_FOUND when the note is gone.
   */
  write(path: string, text: string, base: string, by: string): Promise<void>;
}

/** Who an editor is, decided when its ticket was issued. */
export interface EditorInfo {
  /** The actor its changes are credited to in the history (`key:<id>`, `person:<id>`...). */
  by: string;
  /** Its name for people (the device's key name, the person's name). */
  name: string;
  /** Watches only: its updates are refused. */
  readOnly: boolean;
  /**
   * The credential the ticket was asked with, checked again now: its principal as of now, or null
   * when it no longer opens anything (a key revoked, a person disabled, a session ended).
   */
  recheck?: () => Promise<Principal | null>;
}
