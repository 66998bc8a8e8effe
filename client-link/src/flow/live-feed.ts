/**
 * Follows a server's change feed (`GET /api/v1/events`) for the workspace. EventSource cannot
 * send headers and the key never goes into a URL, so a direct server is read as a stream with
 * fetch (the key in `X-Service-Key`) and parsed here; through the relay, which carries whole
 * answers and not streams, the feed is long-polled (`?after=&wait=25`). Both resume by event id.
 */
import type { Profile } from './profiles.ts';

/** One change, as the feed sends it. */
export interface LiveEvent {
  id: number;
  type: string;
  data: { path: string; from?: string; checksum?: string; external: boolean };
}

export interface FollowOptions {
  /** New events, in order. `reset` is true when some were missed: reload everything. */
  onEvents(events: LiveEvent[], reset: boolean): void;
  /** The feed's starting position is known: reload once, so nothing between the first load and it is missed. */
  onConnected?(): void;
  fetchFn?: typeof fetch;
  /** Milliseconds before retrying after a failure (default 2,000). */
  retryMs?: number;
}

const WAIT_SECONDS = 25;

/** Parses event-stream frames out of `buf`; returns what is left unparsed. */
export function parseFrames(buf: string, out: { id?: string; event?: string; data: string }[]): string {
  const text = buf.replace(/\r\n?/g, '\n');
  let rest = text;
  let cut = rest.indexOf('\n\n');
  while (cut >= 0) {
    const frame: { id?: string; event?: string; data: string } = { data: '' };
    for (const line of rest.slice(0, cut).split('\n')) {
      if (line.startsWith(':')) continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'id') frame.id = value;
      else if (field === 'event') frame.event = value;
      else if (field === 'data') frame.data += frame.data ? `\n${value}` : value;
    }
    if (frame.id !== undefined || frame.event !== undefined) out.push(frame);
    rest = rest.slice(cut + 2);
    cut = rest.indexOf('\n\n');
  }
  return rest;
}

/** Starts following; returns a function that stops. */
export function followChanges(profile: Profile, opts: FollowOptions): () => void {
  const fetchFn = opts.fetchFn ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const retryMs = opts.retryMs ?? 2000;
  const stop = new AbortController();
  const headers = { 'x-service-key': profile.apiKey };
  let last: number | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      stop.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          r();
        },
        { once: true },
      );
    });

  const poll = async () => {
    const after = last === null ? '' : `after=${last}&`;
    const wait = last === null ? 0 : WAIT_SECONDS;
    const res = await fetchFn(`${profile.serverUrl}/api/v1/events?${after}wait=${wait}`, {
      headers: { ...headers, accept: 'application/json' },
      signal: AbortSignal.any([stop.signal, AbortSignal.timeout((WAIT_SECONDS + 10) * 1000)]),
      referrerPolicy: 'no-referrer',
    });
    if (!res.ok) throw new Error(`events: ${res.status}`);
    const page = ((await res.json()) as { data: { events: LiveEvent[]; next: number; reset?: true } }).data;
    const first = last === null;
    last = page.next;
    if (first) opts.onConnected?.();
    else if (page.events.length || page.reset) opts.onEvents(page.events, page.reset === true);
  };

  const stream = async () => {
    const h: Record<string, string> = { ...headers, accept: 'text/event-stream' };
    if (last !== null) h['last-event-id'] = String(last);
    const res = await fetchFn(`${profile.serverUrl}/api/v1/events`, {
      headers: h,
      signal: stop.signal,
      referrerPolicy: 'no-referrer',
    });
    if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const frames: { id?: string; event?: string; data: string }[] = [];
      buf = parseFrames(buf + value, frames);
      const events: LiveEvent[] = [];
      let reset = false;
      for (const f of frames) {
        const hadPosition = last !== null;
        if (f.id !== undefined && /^\d+$/.test(f.id)) last = Number(f.id);
        if (!hadPosition && last !== null) opts.onConnected?.();
        if (f.event === 'reset') reset = hadPosition;
        else if (f.event?.startsWith('note.')) {
          events.push({ id: last ?? 0, type: f.event, data: JSON.parse(f.data) as LiveEvent['data'] });
        }
      }
      if (events.length || reset) opts.onEvents(events, reset);
    }
  };

  void (async () => {
    while (!stop.signal.aborted) {
      try {
        await (profile.mode === 'relay' ? poll() : stream());
      } catch {
        if (stop.signal.aborted) return;
        await sleep(retryMs);
      }
      if (profile.mode !== 'relay') await sleep(500);
    }
  })();
  return () => stop.abort();
}
