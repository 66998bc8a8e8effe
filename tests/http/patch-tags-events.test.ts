import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createChangeFeed } from '../../core/notes/change-feed.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { requester } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

const enc = encodeURIComponent;

async function setup(files: Record<string, string>, ringSize = 100) {
  const clock = { now: () => Date.now() };
  const store = memoryNoteStore({ files });
  const notes = createNoteService({ store, clock, state: memoryStateStore(), logger: silentLogger });
  await notes.load();
  const feed = createChangeFeed({ notes, now: clock.now, size: ringSize });
  const app = createApp({ notes, feed, version: '0.0.0-test', clock, logger: silentLogger, heartbeatMs: 50 });
  const send = requester(app);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(method, path, { body, headers });
  return { app, notes, feed, store, call };
}

/** Reads an event stream until `until` holds for the frames read so far. */
async function readFrames(res: Response, until: (frames: string[]) => boolean): Promise<string[]> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const frames = buf.split('\n\n').filter((f) => f.trim() !== '');
    if (until(frames)) {
      await reader.cancel();
      return frames;
    }
    const { value, done } = await reader.read();
    if (done) return frames;
    buf += dec.decode(value, { stream: true });
  }
}

const eventFrames = (frames: string[]) =>
  frames
    .filter((f) => /^event: note\./m.test(f))
    .map((f) => ({
      id: Number(/^id: (\d+)/m.exec(f)![1]),
      type: /^event: (.+)$/m.exec(f)![1],
      data: JSON.parse(/^data: (.+)$/m.exec(f)![1]!),
    }));

describe('PATCH /api/v1/notes/:path', () => {
  const text = '---\r\nstatus: draft\r\n---\r\n# Today\r\n\r\n- one\r\n\r\n# Later\r\nx\r\n';

  it('appends under a heading and answers the note as GET does, CRLF and frontmatter kept', async () => {
    const { call, store } = await setup({ 'j.md': text });
    const res = await call('PATCH', `/api/v1/notes/${enc('j.md')}`, {
      operation: 'append',
      target: { type: 'heading', path: ['Today'] },
      content: '- two',
    });
    expect(res.status).toBe(200);
    const get = await call('GET', `/api/v1/notes/${enc('j.md')}`);
    expect(res.json).toEqual(get.json);
    expect(res.headers.get('etag')).toBe(`"${get.json.data.checksum}"`);
    const bytes = new TextDecoder().decode((await store.read('j.md'))!);
    expect(bytes).toBe(text.replace('- one\r\n', '- one\r\n- two\r\n'));
  });

  it('sets a frontmatter key; 412 on a stale If-Match; 404, 409 and 400 in the envelope', async () => {
    const { call } = await setup({ 'j.md': text, 'd.md': '# A\n# A\n' });
    const p = `/api/v1/notes/${enc('j.md')}`;
    const before = await call('GET', p);
    const fm = await call(
      'PATCH',
      p,
      { operation: 'replace', target: { type: 'frontmatter', key: 'status' }, content: 'done' },
      { 'if-match': `"${before.json.data.checksum}"` },
    );
    expect([fm.status, fm.json.data.frontmatter.status]).toEqual([200, 'done']);
    const stale = await call(
      'PATCH',
      p,
      { operation: 'append', target: { type: 'document' }, content: 'x' },
      { 'if-match': `"${before.json.data.checksum}"` },
    );
    expect([stale.status, stale.json.error.code]).toEqual([412, 'PRECONDITION_FAILED']);
    const missing = await call('PATCH', p, {
      operation: 'append',
      target: { type: 'heading', path: ['Nope'] },
      content: 'x',
    });
    expect([missing.status, missing.json.error.code]).toEqual([404, 'TARGET_NOT_FOUND']);
    const dup = await call('PATCH', `/api/v1/notes/${enc('d.md')}`, {
      operation: 'append',
      target: { type: 'heading', path: ['A'] },
      content: 'x',
    });
    expect([dup.status, dup.json.error.code, dup.json.error.details.candidates.length]).toEqual([
      409,
      'CONFLICT',
      2,
    ]);
    const bad = await call('PATCH', p, { operation: 'upsert', target: { type: 'document' }, content: 'x' });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const extra = await call('PATCH', p, {
      operation: 'append',
      target: { type: 'document' },
      content: 'x',
      more: 1,
    });
    expect([extra.status, extra.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const noNote = await call('PATCH', `/api/v1/notes/${enc('zz.md')}`, {
      operation: 'append',
      target: { type: 'document' },
      content: 'x',
    });
    expect([noNote.status, noNote.json.error.code]).toEqual([404, 'NOTE_NOT_FOUND']);
  });
});

describe('GET /api/v1/tags', () => {
  it('counts notes per tag, case-insensitively, most used first, and follows writes', async () => {
    const { call } = await setup({
      'a.md': '---\ntags: [work, Home]\n---\n#idea',
      'b.md': 'text #work #home',
      'c.md': 'nothing',
    });
    const res = await call('GET', '/api/v1/tags');
    expect(res.json.data).toEqual([
      { tag: 'Home', count: 2 },
      { tag: 'work', count: 2 },
      { tag: 'idea', count: 1 },
    ]);
    await call('PUT', `/api/v1/notes/${enc('c.md')}`, { content: '#idea again' });
    expect((await call('GET', '/api/v1/tags')).json.data).toContainEqual({ tag: 'idea', count: 2 });
  });
});

describe('GET /api/v1/events', () => {
  it('long poll: answers at once when events exist, waits for the next one, and resets after overflow', async () => {
    const { call, feed } = await setup({ 'a.md': 'a' }, 3);
    const json = { accept: 'application/json' };
    const start = (await call('GET', '/api/v1/events', undefined, json)).json.data;
    expect(start).toEqual({ events: [], next: feed.last() });
    await call('POST', '/api/v1/notes', { path: 'b.md', content: 'b' });
    const first = (await call('GET', `/api/v1/events?after=${start.next}`, undefined, json)).json.data;
    expect(first.events).toEqual([
      {
        id: start.next + 1,
        type: 'note.created',
        data: { path: 'b.md', checksum: expect.any(String), external: false },
      },
    ]);
    const waiting = call('GET', `/api/v1/events?after=${first.next}&wait=5`, undefined, json);
    await new Promise((r) => setTimeout(r, 20));
    await call('DELETE', `/api/v1/notes/${enc('b.md')}`);
    const second = (await waiting).json.data;
    expect(second.events.map((e: any) => [e.type, e.data])).toEqual([
      ['note.deleted', { path: 'b.md', external: false }],
    ]);
    for (const p of ['c.md', 'd.md', 'e.md', 'f.md'])
      await call('POST', '/api/v1/notes', { path: p, content: p });
    const reset = (await call('GET', `/api/v1/events?after=${second.next}`, undefined, json)).json.data;
    expect(reset).toEqual({ events: [], next: feed.last(), reset: true });
    const bad = await call('GET', '/api/v1/events?wait=60', undefined, json);
    expect([bad.status, bad.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('stream: live events, exactly the missed ones with Last-Event-ID, reset when they are gone', async () => {
    const { app, call, feed } = await setup({ 'a.md': 'a' }, 4);
    const live = await app.request('http://x/api/v1/events');
    expect(live.headers.get('content-type')).toContain('text/event-stream');
    const reading = readFrames(
      live,
      (f) => eventFrames(f).length >= 2 && f.some((x) => x.includes(': heartbeat')),
    );
    await call('PUT', `/api/v1/notes/${enc('a.md')}`, { content: 'a2' });
    await call('POST', `/api/v1/notes/${enc('a.md')}/move`, { path: 'm/a.md' });
    const got = eventFrames(await reading);
    expect(got.map((e) => [e.type, e.data.path, e.data.from])).toEqual([
      ['note.updated', 'a.md', undefined],
      ['note.moved', 'm/a.md', 'a.md'],
    ]);
    const seen = got[0]!.id;
    await call('POST', '/api/v1/notes', { path: 'n.md', content: 'n' });
    const resumed = await app.request('http://x/api/v1/events', {
      headers: { 'last-event-id': String(seen) },
    });
    const missed = eventFrames(await readFrames(resumed, (f) => eventFrames(f).length >= 2));
    expect(missed.map((e) => [e.id, e.type])).toEqual([
      [seen + 1, 'note.moved'],
      [seen + 2, 'note.created'],
    ]);
    for (const p of ['p.md', 'q.md', 'r.md', 's.md'])
      await call('POST', '/api/v1/notes', { path: p, content: p });
    const old = await app.request('http://x/api/v1/events', { headers: { 'last-event-id': String(seen) } });
    const frames = await readFrames(old, (f) => f.some((x) => x.includes('event: reset')));
    expect(frames.find((x) => x.includes('event: reset'))).toContain(`id: ${feed.last()}`);
    expect(eventFrames(frames)).toEqual([]);
  });

  it('closing the feed ends open streams and waits', async () => {
    const { app, feed } = await setup({});
    const res = await app.request('http://x/api/v1/events');
    const waiting = app.request(`http://x/api/v1/events?after=${feed.last()}&wait=20`, {
      headers: { accept: 'application/json' },
    });
    feed.close();
    expect(await res.text()).toContain('retry:');
    expect(((await (await waiting).json()) as any).data.events).toEqual([]);
  });
});
