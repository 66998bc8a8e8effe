import { afterEach, describe, expect, it } from 'vitest';
import type { RelayLimits } from '../../../relay/service/types.ts';
import { until } from '../../helpers/wait.ts';
import { newIdentity, newSecret, registerBody } from '../fixtures.ts';
import { PUBLIC, relayHarness } from '../harness.ts';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});
const harness = (limits?: Partial<RelayLimits>) => {
  const h = relayHarness({ limits });
  open.push(h);
  return h;
};
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('relay HTTP surface', () => {
  it('reports health without any serverId', async () => {
    const h = harness();
    const { serverId } = await h.register();
    const res = await h.call('GET', '/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ status: 'ok', queue: { backend: 'memory', reachable: true } });
    expect(JSON.stringify(res.json)).not.toContain(serverId);
  });

  it('answers bad input in the envelope, never 500', async () => {
    const h = harness();
    const signed = await registerBody(await newIdentity());
    const cases: [string, string, unknown, number, string][] = [
      ['GET', '/nope', undefined, 404, 'NOT_FOUND'],
      ['GET', '/api/v1/relay/pull', undefined, 405, 'METHOD_NOT_ALLOWED'],
      ['POST', '/api/v1/relay/register', '{"serverId":', 400, 'INVALID_JSON'],
      ['POST', '/api/v1/relay/register', { serverId: 'x', publicKey: 'k' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/relay/register', { ...signed, proof: { at: 1 } }, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/relay/register', { ...signed, pairCodeHash: 'XYZ' }, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/relay/pull', [], 400, 'VALIDATION_ERROR'],
      [
        'POST',
        '/api/v1/relay/respond',
        { serverId: 'srv-ok', secret: newSecret(), responses: [] },
        400,
        'VALIDATION_ERROR',
      ],
      ['POST', '/api/v1/pair/exchange', { code: 7 }, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/relay/register', `{"pad":"${'x'.repeat(70_000)}"}`, 413, 'PAYLOAD_TOO_LARGE'],
      ['GET', '/r/bad%20id/x', undefined, 404, 'NOT_FOUND'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await h.call(method, path, body);
      expect([method, path, res.status, res.json?.error?.code]).toEqual([method, path, status, code]);
      expect(res.json.success).toBe(false);
      expect(typeof res.json.error.message).toBe('string');
    }
    const { serverId, secret } = await h.register();
    const bad = {
      serverId,
      secret,
      responses: [
        { kind: 'http', requestId: 'abcdefgh-1', status: 200, headers: [['bad name', 'x']], body: null },
      ],
    };
    expect((await h.post('/api/v1/relay/respond', bad)).json.error.code).toBe('VALIDATION_ERROR');
    // Bad base64 in an answer body is refused at the door with a clear 400, never decoded later.
    for (const body of ['A', 'AB=C', 'AAA=A', '=AAA']) {
      const answer = { kind: 'http', requestId: 'abcdefgh-2', status: 200, headers: [], body };
      const res = await h.post('/api/v1/relay/respond', { serverId, secret, responses: [answer] });
      expect([body, res.status, res.json.error.code]).toEqual([body, 400, 'VALIDATION_ERROR']);
    }
  });

  it('lets browsers call pairing and health from any origin, without credentials', async () => {
    const h = harness();
    const pre = await h.call('OPTIONS', '/api/v1/pair/exchange', undefined, {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const res = await h.post(
      '/api/v1/pair/exchange',
      { code: 'nope-nope' },
      { origin: 'https://app.example' },
    );
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('limits new serverIds per client address; re-registering is not counted', async () => {
    const h = harness({ newServersPerClientHour: 2 });
    const [n1, n2, n3] = [await newIdentity(), await newIdentity(), await newIdentity()];
    for (const id of [n1, n2]) expect((await h.register(id)).res.status).toBe(200);
    const third = (await h.register(n3)).res;
    expect([third.status, third.json.error.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await h.register(n1)).res.status).toBe(200);
    const elsewhere = await h.register(n3, {}, { 'x-test-client': '192.0.2.9' });
    expect(elsewhere.res.status).toBe(200);
  });

  it('takes a serverId only with its key: forged ids, foreign signatures, stale or replayed statements and old secrets are refused', async () => {
    const h = harness();
    const mine = await newIdentity();
    const first = await h.register(mine);
    expect(first.res.json.data).toMatchObject({
      serverId: mine.serverId,
      pin: 'created',
      publicUrl: `${PUBLIC}/r/${mine.serverId}`,
    });
    const again = await h.register(mine);
    expect(again.res.json.data.pin).toBe('existing');
    const theirs = await newIdentity();
    const refused = async (body: unknown, why: RegExp) => {
      const r = await h.post('/api/v1/relay/register', body);
      expect([r.status, r.json.error.code]).toEqual([403, 'FORBIDDEN']);
      expect(r.json.error.message).toMatch(why);
    };
    // Their own key, my id: the id is not the one their key names.
    await refused(await registerBody({ identity: theirs.identity, serverId: mine.serverId }), /names/);
    // My public key, their signature.
    const forged = await registerBody({ identity: theirs.identity, serverId: mine.serverId });
    forged.publicKey = (await registerBody(mine)).publicKey;
    await refused(forged, /not signed/);
    // A stale statement, a replayed one, and one replayed with another secret.
    await refused(await registerBody(mine, {}, Date.now() - 10 * 60_000), /too old/);
    const once = await registerBody(mine);
    expect((await h.post('/api/v1/relay/register', once)).status).toBe(200);
    await refused(once, /already used/);
    await refused({ ...(await registerBody(mine)), secret: newSecret() }, /not signed/);
    // A register without a key and its proof does not validate: nothing is trusted on first use.
    for (const body of [
      { serverId: mine.serverId, secret: newSecret() },
      { serverId: 'srv_oldstyle123', secret: newSecret() },
    ]) {
      const r = await h.post('/api/v1/relay/register', body);
      expect([r.status, r.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    // A guessed secret cannot pull or respond; the latest proven register's secret can.
    const guess = newSecret();
    const pull = (secret: string) =>
      h.post('/api/v1/relay/pull', { serverId: mine.serverId, secret, waitMs: 0 });
    expect((await pull(guess)).status).toBe(403);
    const respond = {
      serverId: mine.serverId,
      secret: guess,
      responses: [{ kind: 'pair', requestId: 'abcdefgh-1', apiKey: null }],
    };
    expect((await h.post('/api/v1/relay/respond', respond)).status).toBe(403);
    expect((await pull(once.secret)).status).toBe(200);
    expect((await pull(first.secret)).status).toBe(403);
    const unknown = await h.post('/api/v1/relay/pull', {
      serverId: theirs.serverId,
      secret: guess,
      waitMs: 0,
    });
    expect([unknown.status, unknown.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('carries method, path, query, end-to-end headers and body bytes both ways', async () => {
    const h = harness();
    const { serverId: S_io, secret } = await h.register();
    const upload = Uint8Array.from([0, 255, 1, 254, 0x0d, 0x0a, 0x80]);
    const client = h.call('PATCH', `/r/${S_io}/api/v1/notes/a%2Fb.md?x=1&y=%20`, upload, {
      'content-type': 'application/octet-stream',
      'x-custom': 'kept',
      connection: 'keep-alive, x-hop',
      'x-hop': 'dropped',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      'x-forwarded-for': '6.6.6.6',
    });
    const pulled = await h.post('/api/v1/relay/pull', { serverId: S_io, secret, waitMs: 2_000 });
    const [item] = pulled.json.data.items;
    expect(item).toMatchObject({ kind: 'http', method: 'PATCH', path: '/api/v1/notes/a%2Fb.md?x=1&y=%20' });
    expect(item.deadline).toBeGreaterThan(pulled.json.data.now);
    expect(Buffer.from(item.body, 'base64')).toEqual(Buffer.from(upload));
    const sent = new Map(item.headers as [string, string][]);
    expect(sent.get('x-custom')).toBe('kept');
    for (const hop of ['connection', 'x-hop', 'keep-alive', 'te', 'host', 'content-length'])
      expect(sent.has(hop)).toBe(false);
    expect(sent.get('x-forwarded-for')).toBe('203.0.113.1');
    expect(sent.get('x-forwarded-prefix')).toBe(`/r/${S_io}`);
    const reply = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
    const headers = [
      ['content-type', 'application/octet-stream'],
      ['set-cookie', 'a=1; Path=/'],
      ['set-cookie', 'b=2; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT'],
      ['transfer-encoding', 'chunked'],
      ['connection', 'close'],
    ];
    const answer = { kind: 'http', requestId: item.requestId, status: 207, headers, body: b64(reply) };
    const ack = await h.post('/api/v1/relay/respond', { serverId: S_io, secret, responses: [answer] });
    expect(ack.json.data).toEqual({ accepted: 1, rejected: [] });
    const res = await client;
    expect(res.status).toBe(207);
    // Overriding decisions.md section 5 here: no Set-Cookie crosses the relay (one server's
    // cookie would be every server's on the shared origin; docs/reference/relay.md, "One origin, many servers").
    expect(res.headers.getSetCookie()).toEqual([]);
    // An octet stream is not active content: no sandbox, but never sniffed.
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(res.headers.get('connection')).toBeNull();
    expect(res.headers.get('x-relay-request-id')).toBe(item.requestId);
    expect(res.bytes).toEqual(reply);
  });

  it('pulls several requests at once and takes several answers in one respond', async () => {
    const h = harness();
    const { serverId: S_many, secret } = await h.register();
    const clients = [1, 2, 3].map((n) => h.call('GET', `/r/${S_many}/api/v1/n/${n}`));
    await until('three queued requests', () => h.enqueued() === 3);
    const pulled = await h.post('/api/v1/relay/pull', { serverId: S_many, secret, waitMs: 0 });
    const items = pulled.json.data.items as { requestId: string; path: string }[];
    expect(items.map((i) => i.path)).toEqual(['/api/v1/n/1', '/api/v1/n/2', '/api/v1/n/3']);
    const responses = items.map((i) => ({
      kind: 'http',
      requestId: i.requestId,
      status: 200,
      headers: [['content-type', 'text/plain']],
      body: b64(new TextEncoder().encode(`answer ${i.path}`)),
    }));
    const forged = { ...responses[0]!, requestId: crypto.randomUUID() };
    const ack = await h.post('/api/v1/relay/respond', {
      serverId: S_many,
      secret,
      responses: [...responses, forged],
    });
    expect(ack.json.data).toEqual({ accepted: 3, rejected: [forged.requestId] });
    const texts = (await Promise.all(clients)).map((r) => new TextDecoder().decode(r.bytes));
    expect(texts).toEqual(['answer /api/v1/n/1', 'answer /api/v1/n/2', 'answer /api/v1/n/3']);
  });

  it('binds a requestId to its server: another registered server cannot answer it', async () => {
    const h = harness({ answerTimeoutMs: 1_000 });
    const { serverId: sa, secret: a } = await h.register();
    const { serverId: sb, secret: b } = await h.register();
    const client = h.call('GET', `/r/${sa}/api/v1/n/1`);
    const [item] = (await h.post('/api/v1/relay/pull', { serverId: sa, secret: a, waitMs: 2_000 })).json.data
      .items;
    const answer = { kind: 'http', requestId: item.requestId, status: 200, headers: [], body: null };
    const ack = await h.post('/api/v1/relay/respond', { serverId: sb, secret: b, responses: [answer] });
    expect(ack.json.data).toEqual({ accepted: 0, rejected: [item.requestId] });
    expect((await client).json.error.code).toBe('RELAY_TIMEOUT');
  });

  it('gives 504 in time, drops the request unpulled, and refuses a late answer', async () => {
    const h = harness({ answerTimeoutMs: 150 });
    const { serverId: S_slow, secret } = await h.register();
    const started = Date.now();
    const res = await h.call('POST', `/r/${S_slow}/api/v1/notes`, { path: 'x.md', content: 'late' });
    expect([res.status, res.json.error.code]).toEqual([504, 'RELAY_TIMEOUT']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(Date.now() - started).toBeLessThan(1_500);
    const pulled = await h.post('/api/v1/relay/pull', { serverId: S_slow, secret, waitMs: 0 });
    expect(pulled.json.data.items).toEqual([]);
  });

  it('is 503 SERVER_OFFLINE for unknown, unregistered and long-silent servers', async () => {
    const h = harness({ pullWaitMs: 50, offlineAfterMs: 600, answerTimeoutMs: 100 });
    const unknown = await h.call('GET', '/r/srv-ghost/api/v1/health');
    expect([unknown.status, unknown.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
    const gone = await newIdentity();
    const { serverId: S_gone, secret } = await h.register(gone);
    await h.post('/api/v1/relay/unregister', { serverId: S_gone, secret });
    expect((await h.call('GET', `/r/${S_gone}/api/v1/health`)).json.error.code).toBe('SERVER_OFFLINE');
    await h.register(gone);
    expect((await h.call('GET', `/r/${S_gone}/x`)).json.error.code).toBe('RELAY_TIMEOUT');
    await until(
      'silence to count as offline',
      async () => (await h.call('GET', `/r/${S_gone}/x`)).status === 503,
    );
    // Long silence does not free the serverId for another key.
    const other = await registerBody({ identity: (await newIdentity()).identity, serverId: S_gone });
    expect((await h.post('/api/v1/relay/register', other)).status).toBe(403);
  });

  it('on unregister answers what is queued 503 SERVER_OFFLINE at once, and a late pull cannot revive the server', async () => {
    const h = harness({ answerTimeoutMs: 20_000 });
    const { serverId: S_leave, secret } = await h.register();
    const started = Date.now();
    const queued = [
      h.call('POST', `/r/${S_leave}/api/v1/notes`, '{}'),
      h.call('GET', `/r/${S_leave}/api/v1/notes`),
    ];
    await until('two queued requests', () => h.enqueued() === 2);
    await h.post('/api/v1/relay/unregister', { serverId: S_leave, secret });
    for (const res of await Promise.all(queued))
      expect([res.status, res.json.error.code]).toEqual([503, 'SERVER_OFFLINE']);
    expect(Date.now() - started).toBeLessThan(2_000);
    // A pull sent before the unregister and arriving after it: refused, the server stays offline.
    const late = await h.post('/api/v1/relay/pull', { serverId: S_leave, secret, waitMs: 0 });
    expect([late.status, late.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await h.call('GET', `/r/${S_leave}/x`)).json.error.code).toBe('SERVER_OFFLINE');
    expect(h.enqueued()).toBe(2);
  });

  it('limits body size (413) and queue length (503 with Retry-After)', async () => {
    const h = harness({ maxBodyBytes: 1024, maxQueue: 2, answerTimeoutMs: 1_000 });
    const { serverId: S_lim } = await h.register();
    const big = await h.call('POST', `/r/${S_lim}/api/v1/notes`, new Uint8Array(2048));
    expect([big.status, big.json.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const stream = new ReadableStream({
      start(ctl) {
        ctl.enqueue(new Uint8Array(700));
        ctl.enqueue(new Uint8Array(700));
        ctl.close();
      },
    });
    const chunked = await h.app.request(`/r/${S_lim}/api/v1/notes`, {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    const waiting = [h.call('GET', `/r/${S_lim}/1`), h.call('GET', `/r/${S_lim}/2`)];
    await until('two queued requests', () => h.enqueued() === 2);
    const full = await h.call('GET', `/r/${S_lim}/3`);
    expect([full.status, full.json.error.code, full.headers.get('retry-after')]).toEqual([
      503,
      'NOT_READY',
      '1',
    ]);
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([504, 504]);
  });
});
