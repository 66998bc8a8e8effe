/**
 * Live editing: the rooms of the notes open live, the tickets that let a connection join one, and
 * the note events that reach them. Transport-free: a WebSocket (or the relay's tunnel) hands each
 * connection in as a `LivePeer` (docs/reference/api.md "Live editing").
 */
import { requireCap, visible } from '../auth/access.ts';
import { hasCapability, inWriteScope } from '../auth/scope.ts';
import { sha256Hex } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { decode, type NoteEvent } from '../notes/context.ts';
import { splitFrontmatter } from '../notes/markdown/parts.ts';
import type { NoteService } from '../notes/service.ts';
import { validateNotePath } from '../paths.ts';
import type { Logger, Principal } from '../ports.ts';
import { credentialWatch } from './recheck.ts';
import { LiveRoom } from './room.ts';
import type { EditorInfo, LiveNotes, LivePeer } from './types.ts';

export type { DiskText, EditorInfo, LiveNotice, LivePeer } from './types.ts';

/** How long a ticket may wait for its connection. */
export const TICKET_SECONDS = 30;

export interface LiveDeps {
  notes: NoteService;
  /** Names an actor for people (core/history/author.ts). */
  author: (by: string) => string;
  logger?: Logger;
  now?: () => number;
  /** Quiet time after typing before the document is written (default 1,000 ms; at most 2,000). */
  debounceMs?: number;
  maxWaitMs?: number;
  /** Tickets waiting for their connection at once, all keys together (default 10,000); beyond: 429. */
  maxTickets?: number;
  /**
   * How often every editor's credential is checked again (default 5,000 ms). A change made through
   * this server (a key revoked, a person disabled, a share taken away) is checked at once
   * (`recheckNow`); this period catches the rest (a key revoked by the CLI with the server running,
   * a session that expired).
   */
  recheckMs?: number;
}

/** A ticket as issued: single use, for one note, `expiresIn` seconds. */
export interface LiveTicket {
  ticket: string;
  path: string;
  readOnly: boolean;
  name: string;
  expiresIn: number;
}

/** One connection in a room: what the transport calls with its messages and its end. */
export interface LiveSession {
  receive(data: Uint8Array): void;
  leave(): Promise<void>;
}

const toBase64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** The note service as a room sees it: whole texts, writes credited to the room's authors. */
export function liveNotesOf(notes: NoteService): LiveNotes {
  return {
    async read(path) {
      const bytes = await notes.raw(path);
      return bytes ? { text: decode(bytes), checksum: await sha256Hex(bytes) } : null;
    },
    async write(path, text, base, by) {
      // `frontmatter: {}` when the text has no block: the text is the whole file, a block deleted
      // in the editor stays deleted (without it the note service keeps the file's block).
      const input =
        splitFrontmatter(text).block !== '' ? { content: text } : { content: text, frontmatter: {} };
      await notes.withActor(by, () => notes.update(path, input, undefined, base));
    },
  };
}

/** The live editing service of one server. */
export function createLive(deps: LiveDeps) {
  const now = deps.now ?? Date.now;
  const notes = liveNotesOf(deps.notes);
  const rooms = new Map<string, LiveRoom>();
  const opening = new Map<string, Promise<LiveRoom>>();
  const tickets = new Map<string, EditorInfo & { path: string; expires: number }>();
  let stopping = false;

  // Every editor's credential, checked again while rooms are open (./recheck.ts).
  const watchRooms = credentialWatch(rooms, deps.recheckMs ?? 5000);

  const open = (path: string): Promise<LiveRoom> => {
    const room = rooms.get(path);
    if (room) return Promise.resolve(room);
    let p = opening.get(path);
    if (!p) {
      p = notes
        .read(path)
        .then((disk) => {
          if (!disk) throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
          const r = new LiveRoom(path, disk, {
            notes,
            logger: deps.logger,
            now,
            debounceMs: Math.min(deps.debounceMs ?? 1000, 2000),
            maxWaitMs: deps.maxWaitMs,
            onEmpty: (gone) => {
              if (rooms.get(gone.path) === gone && gone.size === 0) {
                rooms.delete(gone.path);
                watchRooms();
                void gone.close('stopping');
              }
            },
          });
          rooms.set(path, r);
          watchRooms();
          return r;
        })
        .finally(() => opening.delete(path));
      opening.set(path, p);
    }
    return p;
  };

  const onEvent = (e: NoteEvent): void => {
    const key = e.type === 'moved' ? e.from : e.path;
    const room = rooms.get(key);
    if (!room) return;
    if (e.type === 'deleted') {
      rooms.delete(key);
      watchRooms();
      void room.close('deleted');
    } else if (e.type === 'moved') {
      rooms.delete(key);
      watchRooms();
      room.moved(e.path);
      void room.close('moved', e.path);
    } else void room.fileChanged();
  };
  const unsubscribe = deps.notes.subscribe(onEvent);

  return {
    /**
     * A ticket to join the live session of the note at `pathInput`, for `principal` writing as
     * `by`. What the principal cannot see is NOTE_NOT_FOUND (a session there is never revealed);
     * without notes:write (or outside its write folders) the ticket is read-only.
     */
    async ticket(
      principal: Principal | undefined,
      by: string,
      pathInput: unknown,
      recheck?: EditorInfo['recheck'],
    ): Promise<LiveTicket> {
      requireCap(principal, 'notes:read');
      const path = validateNotePath(pathInput);
      if (!visible(principal, path) || !(await deps.notes.raw(path)))
        throw new DomainError('NOTE_NOT_FOUND', `No note at "${path}".`);
      const scope = principal?.scope;
      const readOnly = !hasCapability(scope, 'notes:write') || !inWriteScope(scope, path);
      const ticket = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
      const t = now();
      for (const [k, v] of tickets) if (v.expires <= t) tickets.delete(k);
      // A key asking for tickets it never uses would otherwise grow this map without bound.
      if (tickets.size >= (deps.maxTickets ?? 10_000))
        throw new DomainError(
          'RATE_LIMITED',
          'Too many live tickets wait for their connection; retry in a moment.',
        );
      const name = deps.author(by);
      tickets.set(ticket, { path, by, name, readOnly, recheck, expires: t + TICKET_SECONDS * 1000 });
      return { ticket, path, readOnly, name, expiresIn: TICKET_SECONDS };
    },

    /** Joins with a ticket (spent by this call): UNAUTHORIZED when it is unknown, spent or expired. */
    async join(ticket: string, peer: LivePeer): Promise<LiveSession> {
      const t = tickets.get(ticket);
      tickets.delete(ticket);
      if (!t || t.expires <= now())
        throw new DomainError('UNAUTHORIZED', 'The live ticket is unknown, spent or expired.');
      if (stopping) throw new DomainError('NOT_READY', 'The server is shutting down; retry in a moment.');
      const room = await open(t.path);
      room.join(peer, t);
      return { receive: (data) => room.receive(peer, data), leave: () => room.leave(peer) };
    },

    /**
     * Checks every live editor's credential at once: called when a key, a person or a share
     * changed on this server, so a revoked editor goes now rather than at the next periodic check.
     */
    recheckNow: (): void => watchRooms.now(),

    /** Rooms and editors now (health, benchmarks). */
    stats: () => ({ rooms: rooms.size, editors: [...rooms.values()].reduce((n, r) => n + r.size, 0) }),

    /** The room of `path` when it is open (tests). */
    roomOf: (path: string): LiveRoom | undefined => rooms.get(path),

    /** Writes every open document and disconnects its editors (the server's stop). */
    async close(): Promise<void> {
      stopping = true;
      unsubscribe();
      watchRooms.stop();
      await Promise.all([...opening.values()].map((p) => p.catch(() => {})));
      const all = [...rooms.values()];
      rooms.clear();
      await Promise.all(all.map((r) => r.close('stopping')));
    },
  };
}

export type Live = ReturnType<typeof createLive>;
