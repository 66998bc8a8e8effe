/**
 * A live session over plain requests, for a profile that reaches its server through the relay (the
 * relay carries requests and answers, not WebSockets): joined with a ticket, our messages sent by
 * POST (one request at a time, what was typed meanwhile in the next), the server's taken by a
 * long poll that names the last frame it holds (adapters/http/live-poll.ts, core/live/poll-wire.ts).
 * Any failed call ends the session as a dropped WebSocket would (code 1006): the editor opens a
 * new one and carries over what the server never acknowledged.
 */
import {
  decodeFrames,
  encodeMessages,
  FRAME_CLOSED,
  FRAME_MESSAGE,
  type PollFrame,
} from '../../../core/live/poll-wire.ts';
import { LiveClient, type LiveSocket } from './live-client.ts';

/** Longer than the server's poll wait (20 s), so a quiet session is not taken for a dropped one. */
const POLL_TIMEOUT_MS = 40_000;
const SEND_TIMEOUT_MS = 20_000;

export interface LivePollTarget {
  /** The server's base address (direct, or the relay's `/r/<serverId>`). */
  serverUrl: string;
  apiKey: string;
  fetchFn?: typeof fetch;
}

const decoder = new TextDecoder();

/**
 * One call, its answer read whole, given up after `ms` or when `stop` aborts (AbortSignal.any is
 * newer than some phones' browsers).
 */
async function within(
  stop: AbortSignal,
  ms: number,
  go: (signal: AbortSignal) => Promise<Response>,
): Promise<{ status: number; body: Uint8Array }> {
  const c = new AbortController();
  const timer = setTimeout(() => c.abort(), ms);
  const onStop = () => c.abort();
  stop.addEventListener('abort', onStop, { once: true });
  try {
    const r = await go(c.signal);
    return { status: r.status, body: new Uint8Array(await r.arrayBuffer()) };
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}

/** Joins the live session that `ticket` opens; resolves once the document holds the note's text. */
export async function openLivePoll(
  target: LivePollTarget,
  ticket: string,
  user: (name: string) => { name: string; color: string; colorLight?: string },
): Promise<LiveSocket> {
  const fetchFn = target.fetchFn ?? ((...a) => fetch(...a));
  const base = `${target.serverUrl}/api/v1/live/sessions`;
  const call = (path: string, init: RequestInit, ms: number) =>
    within(stopper.signal, ms, (signal) =>
      fetchFn(`${base}${path}`, {
        ...init,
        headers: { 'x-service-key': target.apiKey, ...(init.headers as Record<string, string>) },
        signal,
      }),
    );
  const stopper = new AbortController();
  const opened = await call(
    '',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ticket }) },
    SEND_TIMEOUT_MS,
  );
  if (opened.status !== 201) {
    const code = opened.status === 401 ? 4401 : opened.status === 404 ? 4404 : 1013;
    throw new Error(`The live session could not open (${code} ${opened.status}).`);
  }
  const id = (JSON.parse(decoder.decode(opened.body)) as { data: { session: string } }).data.session;
  const at = `/${encodeURIComponent(id)}`;

  let ended = false;
  let outbox: Uint8Array[] = [];
  let sending = false;
  const client = new LiveClient((d) => {
    if (ended) return;
    outbox.push(d);
    void pump();
  });
  const live: LiveSocket = {
    client,
    close() {
      if (ended) return;
      finish(1000, 'done');
      void fetchFn(`${base}${at}`, { method: 'DELETE', headers: { 'x-service-key': target.apiKey } }).catch(
        () => {},
      );
    },
  };
  let onEnd: ((code: number, reason: string) => void) | null = null;
  const finish = (code: number, reason: string) => {
    if (ended) return;
    ended = true;
    stopper.abort();
    onEnd?.(code, reason);
  };

  // Our messages in order: one request in flight, what comes meanwhile goes in the next.
  const pump = async () => {
    if (sending || ended || !outbox.length) return;
    sending = true;
    const batch = outbox;
    outbox = [];
    try {
      const r = await call(
        `${at}/messages`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: encodeMessages(batch),
        },
        SEND_TIMEOUT_MS,
      );
      // 400: the server could not read what we sent (as 1007 would say); else the line dropped.
      if (r.status !== 204) return finish(r.status === 400 ? 1007 : 1006, `send ${r.status}`);
    } catch {
      return finish(1006, 'send failed');
    } finally {
      sending = false;
    }
    void pump();
  };

  const deliver = (f: PollFrame): boolean => {
    if (f.kind === FRAME_CLOSED) {
      const c = JSON.parse(decoder.decode(f.bytes)) as { code: number; reason: string };
      finish(c.code, c.reason);
      return false;
    }
    client.receive(f.kind === FRAME_MESSAGE ? f.bytes : decoder.decode(f.bytes));
    return true;
  };

  // The server's frames: each poll names the last frame held, so a lost answer is sent again.
  const follow = async () => {
    let after = 0;
    while (!ended) {
      let frames: PollFrame[] | null;
      try {
        // `after` as Last-Event-ID, not in the URL: one URL keeps the CORS preflight cached.
        const r = await call(
          `${at}/messages`,
          { method: 'GET', headers: { 'last-event-id': String(after) } },
          POLL_TIMEOUT_MS,
        );
        // A relay whose answer time-out is shorter than the poll's wait answers 504: nothing was
        // lost (the server keeps every frame after `after`), so the poll is simply asked again.
        if (r.status === 504) continue;
        if (r.status !== 200) return finish(1006, `poll ${r.status}`);
        frames = decodeFrames(r.body);
      } catch {
        return finish(1006, 'poll failed');
      }
      if (!frames) return finish(1007, 'malformed answer');
      for (const f of frames) {
        if (f.seq <= after) continue;
        after = f.seq;
        if (!deliver(f)) return;
      }
    }
  };

  return new Promise<LiveSocket>((resolve, reject) => {
    let settled = false;
    client.onNotice = (n) => {
      if (n.type === 'hello') client.setUser(user(n.name));
    };
    client.onSynced = () => {
      settled = true;
      resolve(live);
    };
    onEnd = (code, reason) => {
      if (!settled) {
        settled = true;
        client.destroy();
        reject(new Error(`The live session could not open (${code}${reason ? ` ${reason}` : ''}).`));
        return;
      }
      live.onClosed?.(code, reason);
    };
    client.start();
    void follow();
  });
}
