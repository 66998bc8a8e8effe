/**
 * Security review, third round, the change feed over real sockets: an event-stream client that
 * stops reading is cut once more than 1 MiB is queued for it (counted in bytes, not events) and
 * resumes with Last-Event-ID; event streams are capped per key (429 beyond).
 */
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { MAX_BACKLOG_BYTES } from '../../adapters/http/routes/events.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { DomainError } from '../../core/errors.ts';
import { createChangeFeed } from '../../core/notes/change-feed.ts';
import type { NoteEvent } from '../../core/notes/context.ts';
import { createNoteService } from '../../core/notes/service.ts';
import type { Authenticator, RequestCredentials } from '../../core/ports.ts';
import { silentLogger } from '../helpers/logger.ts';
import { until } from '../helpers/wait.ts';

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

/** A key is its own principal; no key is 401. */
const keyAuth = {
  authenticate: async ({ apiKey }: RequestCredentials) => {
    if (!apiKey) throw new DomainError('UNAUTHORIZED', 'no key');
    return { id: apiKey, method: 'api-key' as const };
  },
  known: () => null,
} as unknown as Authenticator;

/** The app on a real socket, with a feed whose events the test emits itself. */
async function feedServer(opts: { streamsPerKey?: number } = {}) {
  const clock = { now: () => Date.now() };
  const notes = createNoteService({
    store: memoryNoteStore({ files: {} }),
    clock,
    state: memoryStateStore(),
    logger: silentLogger,
  });
  await notes.load();
  const listeners = new Set<(e: NoteEvent) => void>();
  const feed = createChangeFeed({
    notes: {
      subscribe: (fn) => {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
      checksumOf: () => 'c'.repeat(64),
    },
    now: clock.now,
    size: 100_000,
  });
  const app = createApp({
    notes,
    feed,
    version: '0.0.0-test',
    clock,
    logger: silentLogger,
    authenticator: keyAuth,
    ...(opts.streamsPerKey ? { eventsStreamsPerKey: opts.streamsPerKey } : {}),
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  stops.push(() => new Promise((r) => server.close(() => r(null))));
  stops.push(() => feed.close());
  const port = (server.address() as AddressInfo).port;
  const emit = (path: string) => {
    for (const fn of listeners) fn({ type: 'updated', path, external: true } as NoteEvent);
  };
  return { port, feed, emit, url: `http://127.0.0.1:${port}` };
}

/** A raw event-stream request; the socket and everything read so far. */
function openStream(port: number, headers: Record<string, string>) {
  const socket: Socket = connect(port, '127.0.0.1');
  stops.push(() => socket.destroy());
  const got = { text: '', bytes: 0, ended: false };
  socket.on('data', (d: Buffer) => {
    got.bytes += d.byteLength;
    got.text += d.toString('latin1');
  });
  socket.on('end', () => {
    got.ended = true;
  });
  socket.on('close', () => {
    got.ended = true;
  });
  socket.on('error', () => {});
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET /api/v1/events HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n`);
  return { socket, got };
}

const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

describe('item 3: the change feed counts queued bytes', () => {
  it('a stream that stops reading is closed once more than 1 MiB is queued, and resumes by Last-Event-ID', async () => {
    const s = await feedServer();
    const a = openStream(s.port, { 'x-service-key': 'k1' });
    await until('the condition', () => a.got.text.includes(': ready'));
    a.socket.pause();
    // 5,000 events of about 4.1 KB each: 20 MB, twenty times the limit.
    const long = 'p'.repeat(4000);
    const total = 5_000;
    for (let i = 0; i < total; i++) {
      s.emit(`${long}/${i}.md`);
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
    const sentBytes = total * 4100;
    a.socket.resume();
    await until('the condition', () => a.got.ended, 20_000);
    // Closed by the server, far short of everything: at most the limit plus the sockets' buffers.
    expect(a.got.bytes).toBeLessThan(sentBytes / 2);
    expect(a.got.bytes).toBeGreaterThan(0);
    const seen = ids(a.got.text);
    const lastSeen = seen.at(-1)!;
    expect(seen.length).toBeLessThan(total);
    // The client resumes where it was cut, and gets the rest in order.
    const b = openStream(s.port, { 'x-service-key': 'k1', 'last-event-id': String(lastSeen) });
    await until('the condition', () => b.got.ended, 15_000);
    const resumed = ids(b.got.text);
    expect(resumed[0]).toBe(lastSeen + 1);
    expect(resumed).toEqual(resumed.map((_, i) => lastSeen + 1 + i));
    // A catch-up longer than the limit comes in parts of about 1 MiB: the stream closes after one,
    // and the client goes on from its last id.
    expect(b.got.bytes).toBeLessThan(2 * MAX_BACKLOG_BYTES);
    expect(resumed.at(-1)).toBeLessThan(lastSeen + total);
  }, 60_000);

  it('at most 8 event streams per key (the 9th is 429, others unaffected); a closed one frees its place', async () => {
    const s = await feedServer();
    const open = [];
    for (let i = 0; i < 8; i++) {
      const st = openStream(s.port, { 'x-service-key': 'k1' });
      await until('the condition', () => st.got.text.includes(': ready'));
      open.push(st);
    }
    const ninth = await fetch(`${s.url}/api/v1/events`, { headers: { 'x-service-key': 'k1' } });
    expect(ninth.status).toBe(429);
    expect(((await ninth.json()) as any).error.code).toBe('RATE_LIMITED');
    // Another key, and the long-poll form, are not counted against k1.
    const other = openStream(s.port, { 'x-service-key': 'k2' });
    await until('the condition', () => other.got.text.includes(': ready'));
    const poll = await fetch(`${s.url}/api/v1/events?wait=0`, {
      headers: { 'x-service-key': 'k1', accept: 'application/json' },
    });
    expect(poll.status).toBe(200);
    open[0]!.socket.destroy();
    await until('the condition', async () => {
      const res = await fetch(`${s.url}/api/v1/events`, {
        headers: { 'x-service-key': 'k1' },
        signal: AbortSignal.timeout(2000),
      });
      const okNow = res.status === 200;
      await res.body?.cancel();
      return okNow;
    });
  });

  it('EVENTS_STREAMS_PER_KEY sets the cap', async () => {
    const s = await feedServer({ streamsPerKey: 1 });
    const one = openStream(s.port, { 'x-service-key': 'k1' });
    await until('the condition', () => one.got.text.includes(': ready'));
    expect((await fetch(`${s.url}/api/v1/events`, { headers: { 'x-service-key': 'k1' } })).status).toBe(429);
  });
});
