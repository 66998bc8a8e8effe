/**
 * Live editing over plain requests: the way an editor that comes through the relay edits together.
 * The real Node server with its embedded relay: editors over the relay, beside one on the
 * WebSocket, converge with the file on disk; the session is its editor's (another key, a bad
 * ticket, a malformed body are clear refusals); an answer lost on the way is sent again.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLivePoll } from '../../client-link/src/flow/live-poll.ts';
import type { LiveSocket } from '../../client-link/src/flow/live-socket.ts';
import { decodeFrames, encodeMessages, FRAME_CLOSED, FRAME_NOTICE } from '../../core/live/poll-wire.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { liveEditor, liveTicket, type WsEditor } from '../helpers/live-ws.ts';
import { until } from '../helpers/wait.ts';

let server: LiveServer;
let key: string;
let via: string;
const open: { close(): unknown }[] = [];

const call = (method: string, path: string, body?: unknown, k = key, base = server.url) =>
  fetch(`${base}${path}`, {
    method,
    headers: { 'x-service-key': k, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const user = (name: string) => ({ name, color: '#000' });

/** An editor over requests through the relay, synced. */
async function relayed(path: string, k = key): Promise<LiveSocket> {
  const t = await liveTicket(via, k, path);
  expect(t.status).toBe(201);
  const s = await openLivePoll({ serverUrl: via, apiKey: k }, t.body.data.ticket, user);
  open.push({
    close() {
      s.close();
      s.client.destroy();
    },
  });
  return s;
}

beforeAll(async () => {
  server = await liveServer({ PAIRING_MODE: 'relay', LIVE_DEBOUNCE_MS: '300' });
  key = server.firstKey;
  via = `${server.relayUrl}/r/${(await server.setup()).serverId}`;
}, 60_000);

afterAll(async () => {
  for (const o of open) await o.close();
  await server?.stop();
});

describe('live editing over requests (through the relay)', () => {
  it('two relayed editors and one on the WebSocket type at once and converge with the file', async () => {
    expect((await call('POST', '/api/v1/notes', { path: 'Poll/a.md', content: 'one\ntwo\n' })).status).toBe(
      201,
    );
    const a = await relayed('Poll/a.md');
    const b = await relayed('Poll/a.md');
    const w: WsEditor = await liveEditor(server.url, key, 'Poll/a.md');
    open.push(w);
    expect(a.client.text.toString()).toBe('one\ntwo\n');
    for (let i = 0; i < 15; i++) {
      a.client.text.insert(0, `a${i} `);
      b.client.text.insert(b.client.text.length, `b${i}\n`);
    }
    w.client.text.insert(0, 'ws ');
    const same = () => {
      const t = a.client.text.toString();
      return t === b.client.text.toString() && t === w.client.text.toString() && t.includes('b14');
    };
    await until('converged', same, 10_000);
    const text = a.client.text.toString();
    for (let i = 0; i < 15; i++) expect(text).toContain(`a${i} `);
    expect(text).toContain('ws ');
    await until('on disk', async () => (await readFile(join(server.vaultDir, 'Poll/a.md'), 'utf8')) === text);
    // Every update of ours is acknowledged once the file holds it.
    await until('acknowledged', () => !a.client.unsaved && !b.client.unsaved);
  });

  it('a REST write enters a relayed editor; a deleted note ends its session with the reason', async () => {
    expect((await call('POST', '/api/v1/notes', { path: 'Poll/b.md', content: 'base\n' })).status).toBe(201);
    const a = await relayed('Poll/b.md');
    let closed: { code: number; reason: string } | null = null;
    a.onClosed = (code, reason) => {
      closed = { code, reason };
    };
    const sum = ((await (await call('GET', '/api/v1/notes/Poll%2Fb.md')).json()) as any).data.checksum;
    expect(
      (await call('PUT', '/api/v1/notes/Poll%2Fb.md', { content: 'base\nrest\n', base: sum })).status,
    ).toBe(200);
    await until('rest write in', () => a.client.text.toString() === 'base\nrest\n');
    expect((await call('DELETE', '/api/v1/notes/Poll%2Fb.md')).status).toBe(200);
    await until('closed', () => closed !== null);
    expect(closed).toEqual({ code: 4404, reason: 'deleted' });
    expect(a.client.notices.at(-1)).toEqual({ type: 'closed', reason: 'deleted' });
  });

  it("a session is its editor's: another key, a bad ticket, a malformed body are refused clearly", async () => {
    expect((await call('POST', '/api/v1/notes', { path: 'Poll/c.md', content: 'c\n' })).status).toBe(201);
    const other = ((await (await call('POST', '/api/v1/auth/keys', { name: 'other' })).json()) as any).data
      .apiKey as string;
    const t = await liveTicket(via, key, 'Poll/c.md');
    const opened = await call('POST', '/api/v1/live/sessions', { ticket: t.body.data.ticket }, key, via);
    expect(opened.status).toBe(201);
    const id = ((await opened.json()) as any).data.session as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The ticket is spent.
    const again = await call('POST', '/api/v1/live/sessions', { ticket: t.body.data.ticket }, key, via);
    expect(again.status).toBe(401);
    expect(((await again.json()) as any).error.code).toBe('UNAUTHORIZED');

    const poll = (after: number, k = key) =>
      fetch(`${via}/api/v1/live/sessions/${id}/messages?after=${after}`, { headers: { 'x-service-key': k } });
    // Another key does not learn of the session.
    const stranger = await poll(0, other);
    expect(stranger.status).toBe(404);
    expect(((await stranger.json()) as any).error.code).toBe('NOT_FOUND');

    // The first answer holds the hello and the server's sync step; an answer lost on the way
    // (asked again with the same `after`) comes again, whole.
    const first = decodeFrames(new Uint8Array(await (await poll(0)).arrayBuffer()))!;
    expect(first.length).toBeGreaterThanOrEqual(2);
    const hello = first.find((f) => f.kind === FRAME_NOTICE)!;
    expect(JSON.parse(new TextDecoder().decode(hello.bytes))).toMatchObject({
      type: 'hello',
      path: 'Poll/c.md',
    });
    const resent = decodeFrames(new Uint8Array(await (await poll(0)).arrayBuffer()))!;
    expect(resent.map((f) => f.seq)).toEqual(first.map((f) => f.seq));
    expect(first.length).toBeGreaterThanOrEqual(2);
    // `after` as Last-Event-ID (one URL for every poll, so a browser's CORS preflight stays cached).
    const byHeader = await fetch(`${via}/api/v1/live/sessions/${id}/messages`, {
      headers: { 'x-service-key': key, 'last-event-id': String(first[0]!.seq) },
    });
    expect(decodeFrames(new Uint8Array(await byHeader.arrayBuffer()))!.map((f) => f.seq)).toEqual(
      first.slice(1).map((f) => f.seq),
    );

    const send = (body: Uint8Array<ArrayBuffer> | string, type = 'application/octet-stream') =>
      fetch(`${via}/api/v1/live/sessions/${id}/messages`, {
        method: 'POST',
        headers: { 'x-service-key': key, 'content-type': type },
        body,
      });
    expect((await send('{"a":1}', 'application/json')).status).toBe(415);
    const torn = await send(new Uint8Array([0, 0, 0, 9, 1]));
    expect(torn.status).toBe(400);
    expect(((await torn.json()) as any).error.code).toBe('VALIDATION_ERROR');
    expect((await poll(-1)).status).toBe(400);
    // A message that is no y-protocols message ends the session, said in its last frame.
    const bad = await send(encodeMessages([new Uint8Array([0, 9, 9, 9])]));
    expect(bad.status).toBe(400);
    const last = decodeFrames(new Uint8Array(await (await poll(first.at(-1)!.seq)).arrayBuffer()))!;
    expect(last.at(-1)!.kind).toBe(FRAME_CLOSED);
    expect(JSON.parse(new TextDecoder().decode(last.at(-1)!.bytes))).toEqual({
      code: 1007,
      reason: 'malformed message',
    });
    expect((await poll(last.at(-1)!.seq)).status).toBe(404);
  });

  it('a relay that times answers out before the poll wait: the poll is asked again, nothing is lost', async () => {
    const quick = await liveServer({ PAIRING_MODE: 'relay', RELAY_ANSWER_TIMEOUT_MS: '700' });
    try {
      const v = `${quick.relayUrl}/r/${(await quick.setup()).serverId}`;
      const k = quick.firstKey;
      const made = await call('POST', '/api/v1/notes', { path: 'q.md', content: 'q\n' }, k, quick.url);
      expect(made.status).toBe(201);
      const t = await liveTicket(v, k, 'q.md');
      const seen: number[] = [];
      const s = await openLivePoll(
        {
          serverUrl: v,
          apiKey: k,
          fetchFn: async (input, init) => {
            const r = await fetch(input, init);
            if (String(input).endsWith('/messages') && init?.method === 'GET') seen.push(r.status);
            return r;
          },
        },
        t.body.data.ticket,
        user,
      );
      let closed = false;
      s.onClosed = () => {
        closed = true;
      };
      // Quiet for longer than two answer time-outs: the polls meet 504s and go on.
      await until('two 504s', () => seen.filter((x) => x === 504).length >= 2, 10_000);
      expect(closed).toBe(false);
      const sum = ((await (await call('GET', '/api/v1/notes/q.md', undefined, k, quick.url)).json()) as any)
        .data.checksum;
      const put = await call('PUT', '/api/v1/notes/q.md', { content: 'q\nlater\n', base: sum }, k, quick.url);
      expect(put.status).toBe(200);
      await until('the write in', () => s.client.text.toString() === 'q\nlater\n');
      s.close();
      s.client.destroy();
    } finally {
      await quick.stop();
    }
  });
});
