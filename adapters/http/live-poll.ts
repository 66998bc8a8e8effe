/**
 * Live editing over plain requests, for editors that reach the server through the relay: the relay
 * carries requests and answers (long-poll or its tunnel, on any of its nodes), not WebSockets. A
 * session is joined with a live ticket like the WebSocket's; the editor's messages come by POST,
 * the server's wait in the session's mailbox for a long-poll GET that names the last frame it
 * holds, so an answer lost on the way is sent again by the next poll (core/live/poll-wire.ts).
 */
import { DomainError } from '../../core/errors.ts';
import {
  encodeFrames,
  FRAME_CLOSED,
  FRAME_MESSAGE,
  FRAME_NOTICE,
  type FrameKind,
  type PollFrame,
} from '../../core/live/poll-wire.ts';
import type { Live, LivePeer, LiveSession } from '../../core/live/service.ts';

export interface PollLimits {
  /** Longest a poll waits for a frame (an empty answer then), ms. */
  waitMs: number;
  /** A session neither polled nor sent to for this long is left, ms. */
  idleMs: number;
  /** Frame bytes one session may hold unfetched; beyond, the session ends (its editor reconnects). */
  maxQueuedBytes: number;
  /** Sessions open at once, all editors together (429 beyond). */
  maxSessions: number;
}

export const POLL_LIMITS: PollLimits = {
  waitMs: 20_000,
  idleMs: 60_000,
  maxQueuedBytes: 32 * 1024 * 1024,
  maxSessions: 10_000,
};

/** Most frame bytes in one answer (at least one frame is always sent). */
const MAX_ANSWER_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

const toBase64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** One editor's session: its frames not yet acknowledged, and the poll waiting for the next. */
class PollSession {
  readonly frames: PollFrame[] = [];
  queuedBytes = 0;
  seq = 0;
  lastSeen: number;
  session: LiveSession | null = null;
  ended = false;
  private waiter: ((frames: PollFrame[]) => void) | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly by: string,
    now: number,
    private readonly limits: PollLimits,
    private readonly onOverflow: () => void,
  ) {
    this.lastSeen = now;
  }

  readonly peer: LivePeer = {
    send: (d) => this.push(FRAME_MESSAGE, d),
    notice: (n) => this.push(FRAME_NOTICE, encoder.encode(JSON.stringify(n))),
    close: (code, reason) => this.end(code, reason),
  };

  push(kind: FrameKind, bytes: Uint8Array): void {
    if (this.ended) return;
    this.add(kind, bytes);
    if (this.queuedBytes > this.limits.maxQueuedBytes) this.onOverflow();
    else this.wake();
  }

  /** The last frame: the session is over once the editor has it. */
  end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.add(FRAME_CLOSED, encoder.encode(JSON.stringify({ code, reason })));
    this.wake();
    void this.session?.leave();
  }

  private add(kind: FrameKind, bytes: Uint8Array): void {
    // A copy: the room may reuse its buffers once `send` returns.
    this.frames.push({ kind, seq: ++this.seq, bytes: bytes.slice() });
    this.queuedBytes += bytes.length + 9;
  }

  /** Drops what the editor holds (`after` and before), then answers what is left or waits for it. */
  poll(after: number): Promise<PollFrame[]> {
    while (this.frames.length && this.frames[0]!.seq <= after) {
      this.queuedBytes -= this.frames.shift()!.bytes.length + 9;
    }
    // A newer poll of the same editor takes over: the older one answers empty.
    this.settle([]);
    if (this.frames.length) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.timer = setTimeout(() => this.settle([]), this.limits.waitMs);
    });
  }

  private take(): PollFrame[] {
    const out: PollFrame[] = [];
    let size = 0;
    for (const f of this.frames) {
      if (out.length && size + f.bytes.length > MAX_ANSWER_BYTES) break;
      out.push(f);
      size += f.bytes.length;
    }
    return out;
  }

  private wake(): void {
    if (this.waiter) this.settle(this.take());
  }

  settle(frames: PollFrame[]): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = null;
    clearTimeout(this.timer);
    w(frames);
  }
}

/** The sessions of one server's live editing over requests. */
export function livePoll(live: Live, limits: PollLimits = POLL_LIMITS, now: () => number = Date.now) {
  const sessions = new Map<string, PollSession>();

  // The sweep of idle sessions runs while there are sessions (an app made in a test leaves no timer).
  let sweep: ReturnType<typeof setInterval> | undefined;
  const forget = (id: string) => {
    sessions.delete(id);
    if (sessions.size === 0 && sweep !== undefined) {
      clearInterval(sweep);
      sweep = undefined;
    }
  };
  /** Ends a session; it is forgotten once its editor took the last frame (or left, or idled). */
  const end = (s: PollSession, code: number, reason: string) => s.end(code, reason);
  const startSweep = () => {
    if (sweep !== undefined) return;
    sweep = setInterval(
      () => {
        const t = now();
        for (const [id, s] of sessions)
          if (t - s.lastSeen > limits.idleMs) {
            forget(id);
            end(s, 1001, 'idle');
          }
      },
      Math.max(1000, limits.idleMs / 4),
    );
    (sweep as { unref?: () => void }).unref?.();
  };

  /** The session `id` of `by`: NOT_FOUND when unknown, ended and fetched, or another's. */
  const sessionOf = (id: string, by: string): PollSession => {
    const s = sessions.get(id);
    if (!s || s.by !== by) throw new DomainError('NOT_FOUND', 'No such live session; open it again.');
    s.lastSeen = now();
    return s;
  };

  return {
    /** Joins with a ticket (live.join checks it): the session's id, a secret of its editor. */
    async open(ticket: string, by: string): Promise<string> {
      if (sessions.size >= limits.maxSessions)
        throw new DomainError('RATE_LIMITED', 'Too many live sessions are open; retry in a moment.', 5);
      const id = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
      const s: PollSession = new PollSession(by, now(), limits, () => end(s, 1009, 'too far behind'));
      s.session = await live.join(ticket, s.peer);
      sessions.set(id, s);
      startSweep();
      return id;
    },

    /** The editor's messages, in order. A malformed one ends the session (as 1007 would). */
    send(id: string, by: string, messages: Uint8Array[]): void {
      const s = sessionOf(id, by);
      if (s.ended) return;
      try {
        for (const m of messages) s.session?.receive(m);
      } catch {
        end(s, 1007, 'malformed message');
        throw new DomainError('VALIDATION_ERROR', 'A live message could not be read; the session ended.');
      }
    },

    /** Frames after `after`, waiting up to the poll's wait for one; the answer body. */
    async poll(id: string, by: string, after: number): Promise<Uint8Array<ArrayBuffer>> {
      const s = sessionOf(id, by);
      const frames = await s.poll(after);
      s.lastSeen = now();
      // The last frame sent: the session is over (an answer lost now ends it as a dropped line does).
      if (frames.at(-1)?.kind === FRAME_CLOSED && sessions.get(id) === s) forget(id);
      return encodeFrames(frames);
    },

    /** The editor leaves. */
    leave(id: string, by: string): void {
      const s = sessionOf(id, by);
      forget(id);
      end(s, 1000, 'done');
    },

    stats: () => ({ sessions: sessions.size }),

    close(): void {
      for (const [id, s] of sessions) {
        forget(id);
        end(s, 1001, 'stopping');
      }
    },
  };
}

export type LivePoll = ReturnType<typeof livePoll>;
