import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { liveEditor, liveSocket, liveTicket, type WsEditor } from '../helpers/live-ws.ts';
import { until } from '../helpers/wait.ts';

let server: LiveServer;
let key: string;
const editors: WsEditor[] = [];

const call = (method: string, path: string, body?: unknown, k = key) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-service-key': k, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const mint = async (name: string, scope?: unknown) =>
  ((await (await call('POST', '/api/v1/auth/keys', { name, scope })).json()) as any).data.apiKey as string;

const onDisk = (path: string) => readFile(join(server.vaultDir, path), 'utf8');

beforeAll(async () => {
  // The periodic check of live credentials a minute away: a revocation here is checked at once.
  server = await liveServer({ PAIRING_MODE: 'open-port', LIVE_DEBOUNCE_MS: '300', LIVE_RECHECK_MS: '60000' });
  key = server.firstKey;
});

afterAll(async () => {
  for (const e of editors) await e.close();
  await server?.stop();
});

const editor = async (path: string, k = key) => {
  const e = await liveEditor(server.url, k, path);
  editors.push(e);
  return e;
};

describe('the live door', () => {
  it('two editors type at once and converge with the file on disk', async () => {
    expect(
      (await call('POST', '/api/v1/notes', { path: 'Live/a.md', content: 'first line\nsecond line\n' }))
        .status,
    ).toBe(201);
    const a = await editor('Live/a.md');
    const b = await editor('Live/a.md');
    expect(a.client.name).not.toContain('quire_sk_');
    for (let i = 0; i < 20; i++) {
      a.client.text.insert(0, `a${i} `);
      b.client.text.insert(b.client.text.length, `b${i}\n`);
    }
    await until(
      'converged',
      () => a.client.text.toString() === b.client.text.toString() && a.client.text.length > 100,
    );
    const text = a.client.text.toString();
    for (let i = 0; i < 20; i++) expect(text).toContain(`a${i} `);
    await until('on disk', async () => (await onDisk('Live/a.md')) === text);
    await until('acknowledged', () => a.client.acked >= a.client.sent && b.client.acked >= b.client.sent);
    const note = ((await (await call('GET', '/api/v1/notes/Live%2Fa.md')).json()) as any).data;
    expect(note.content).toBe(text);
  });

  it('the history and the change feed name every author of a pause', async () => {
    await call('POST', '/api/v1/notes', { path: 'Live/d.md', content: 'two hands\n' });
    const laptop = await mint('laptop');
    const phone = await mint('phone');
    const poll = (after?: number) =>
      fetch(`${server.url}/api/v1/events${after === undefined ? '' : `?after=${after}`}`, {
        headers: { 'x-service-key': key, accept: 'application/json' },
      }).then(async (r) => ((await r.json()) as any).data);
    const feed = await poll();
    const both = (author: string) => author.split(', ').sort().join() === 'laptop,phone';
    const a = await editor('Live/d.md', laptop);
    const b = await editor('Live/d.md', phone);
    a.client.text.insert(0, 'left ');
    b.client.text.insert(b.client.text.length, 'right\n');
    await until(
      'both acknowledged',
      () => a.client.acked >= a.client.sent && b.client.acked >= b.client.sent,
    );
    await until('one version with both', async () => {
      const v = ((await (await call('GET', '/api/v1/notes/Live%2Fd.md/versions')).json()) as any).data;
      return v.some((x: any) => both(x.author));
    });
    const events = (await poll(feed.next)).events as any[];
    expect(events.some((e) => e.data.path === 'Live/d.md' && both(e.data.author))).toBe(true);
  });

  it('an edit of the file on disk enters the open document as a minimal change', async () => {
    await call('POST', '/api/v1/notes', { path: 'Live/b.md', content: 'one\ntwo\nthree\n' });
    const a = await editor('Live/b.md');
    const b = await editor('Live/b.md');
    // b's cursor on "three", held as Yjs holds a remote cursor.
    const cursor = Y.createRelativePositionFromTypeIndex(b.client.text, 'one\ntwo\nth'.length);
    await writeFile(join(server.vaultDir, 'Live/b.md'), 'ONE\ntwo\nthree\n');
    await until(
      'disk edit in',
      () =>
        a.client.text.toString() === 'ONE\ntwo\nthree\n' &&
        b.client.text.toString() === a.client.text.toString(),
    );
    expect(Y.createAbsolutePositionFromRelativePosition(cursor, b.client.doc)?.index).toBe(
      'ONE\ntwo\nth'.length,
    );
    // A REST write with a base enters the same way.
    const sum = ((await (await call('GET', '/api/v1/notes/Live%2Fb.md')).json()) as any).data.checksum;
    b.client.text.insert(b.client.text.length, 'four\n');
    expect(
      (
        await call('PUT', '/api/v1/notes/Live%2Fb.md', {
          content: 'ONE\ntwo\nthree\n\nfrom rest\n',
          base: sum,
        })
      ).status,
    ).toBe(200);
    await until(
      'both in',
      () => a.client.text.toString().includes('from rest') && a.client.text.toString().includes('four'),
    );
    await until('file agrees', async () => (await onDisk('Live/b.md')) === a.client.text.toString());
  });

  it('a read-only key watches, its updates refused; a hidden note is a 404; bad tickets close', async () => {
    await call('POST', '/api/v1/notes', { path: 'Live/c.md', content: 'watched\n' });
    const viewer = await mint('viewer', { capabilities: ['notes:read'] });
    const other = await mint('other', {
      capabilities: ['notes:read', 'notes:write'],
      folders: ['Elsewhere'],
    });
    const w = await editor('Live/c.md');
    const r = await editor('Live/c.md', viewer);
    expect(r.client.readOnly).toBe(true);
    expect(r.client.name).toBe('viewer');
    r.client.text.insert(0, 'sneaky ');
    await until('refused', () => r.client.notices.some((n) => n.type === 'refused'));
    w.client.text.insert(w.client.text.length, 'more\n');
    await until('viewer sees', () => r.client.text.toString().includes('more'));
    expect(w.client.text.toString()).toBe('watched\nmore\n');
    await until('file', async () => (await onDisk('Live/c.md')) === 'watched\nmore\n');
    expect((await liveTicket(server.url, other, 'Live/c.md')).status).toBe(404);
    const bad = liveSocket(server.url, 'not-a-ticket');
    const code = await new Promise<number>((resolve) => bad.on('close', (c) => resolve(c)));
    expect(code).toBe(4401);
    const none = liveSocket(server.url, null);
    await new Promise<void>((resolve) => none.on('error', () => resolve()));
  });

  it('a revoked key is sent away from its live session at once (4401), the others stay', async () => {
    await call('POST', '/api/v1/notes', { path: 'Live/revoke.md', content: 'd\n' });
    const res = await call('POST', '/api/v1/auth/keys', { name: 'soon-revoked' });
    const minted = ((await res.json()) as any).data;
    const staying = await editor('Live/revoke.md');
    const leaving = await editor('Live/revoke.md', minted.apiKey);
    const revoked = await call('DELETE', `/api/v1/auth/keys/${minted.id}`);
    expect(revoked.status, await revoked.text()).toBe(200);
    // The revocation asks for a check at once (the periodic one is a minute away).
    await until('sent away', () => leaving.closed !== null, 15_000);
    expect(leaving.closed).toEqual({ code: 4401, reason: 'revoked' });
    expect(leaving.client.notices.at(-1)).toEqual({ type: 'closed', reason: 'revoked' });
    expect(staying.closed).toBeNull();
    staying.client.text.insert(0, 'still ');
    await until('written', async () => (await onDisk('Live/revoke.md')) === 'still d\n');
  });
});
