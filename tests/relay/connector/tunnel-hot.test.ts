import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../core/errors.ts';
import type { Logger } from '../../../core/ports.ts';
import { answerHot } from '../../../http-kit/hot-answer.ts';
import type { HotRoute } from '../../../http-kit/hot-route.ts';
import { maskNeedless } from '../../../relay/connector/tunnel-connector.ts';
import { type TunnelHotFrame, tunnelHotRequest } from '../../../relay/connector/tunnel-hot.ts';

/** A frame over `routes` whose log lines are kept, and the answers written through it. */
function harness(routes: HotRoute[], trustProxy = false) {
  const lines: { level: string; msg: string; fields: unknown }[] = [];
  const log =
    (level: string) =>
    (msg: string, fields: unknown): void => {
      lines.push({ level, msg, fields });
    };
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const frame: TunnelHotFrame = {
    routes,
    logger,
    where: 'server',
    base: (x) => ({ 'X-Frame-Options': 'DENY', 'X-Request-Id': x.requestId() }),
    trustProxy,
    answered: { count: 0 },
  };
  const written: { status: number; headers: [string, string][]; body: string | null }[] = [];
  let cut = 0;
  const io = {
    open: () => true,
    write: (status: number, headers: [string, string][], body: Uint8Array | null) => {
      written.push({ status, headers, body: body && new TextDecoder().decode(body) });
    },
    cut: () => {
      cut++;
    },
    signal: () => new AbortController().signal,
  };
  const ask = (method: string, target: string, headers: [string, string][] = []) =>
    tunnelHotRequest(method, target, headers, frame, io);
  return { frame, written, lines, ask, cuts: () => cut };
}

const json =
  (body: string): HotRoute =>
  () => ({
    status: 200,
    headers: [['Content-Type', 'application/json']],
    body: new TextEncoder().encode(body),
  });

describe("the tunnel's hot requests (relay/connector/tunnel-hot.ts)", () => {
  it('offers only GET and HEAD on a target and headers the app would see unchanged', () => {
    const { ask } = harness([json('{}')]);
    expect(ask('GET', '/api/v1/health')).not.toBeNull();
    expect(ask('HEAD', '/api/v1/notes/a%20b.md?x=1')).not.toBeNull();
    expect(ask('POST', '/api/v1/health')).toBeNull();
    expect(ask('GET', '')).toBeNull();
    expect(ask('GET', '?only=query')).toBeNull();
    expect(ask('GET', '/api/v1/notes/../a.md')).toBeNull();
    expect(ask('GET', '/api/v1/notes/%2e%2e/a.md')).toBeNull();
    expect(ask('GET', '/api/v1/a|b')).toBeNull();
    // Names a web Headers would lower-case or refuse, values it would trim or refuse.
    expect(ask('GET', '/x', [['X-Upper', 'v']])).toBeNull();
    expect(ask('GET', '/x', [['bad name', 'v']])).toBeNull();
    expect(ask('GET', '/x', [['x-a', ' padded']])).toBeNull();
    expect(ask('GET', '/x', [['x-a', 'line\r\nbreak']])).toBeNull();
  });

  it('reads headers as the app does: repeats joined, the address by the relayed rule', () => {
    const { ask } = harness([]);
    const x = ask('GET', '/p?q=1', [
      ['x-dup', 'one'],
      ['x-forwarded-for', '6.6.6.6, 10.0.0.7'],
      ['x-dup', 'two'],
    ])!;
    expect(x.path).toBe('/p');
    expect(x.search).toBe('?q=1');
    expect(x.header('x-dup')).toBe('one, two');
    expect(x.header('absent')).toBeUndefined();
    expect(x.headerPairs()).toEqual([
      ['x-dup', 'one, two'],
      ['x-forwarded-for', '6.6.6.6, 10.0.0.7'],
    ]);
    // The relay's last hop, with or without trustProxy (the app's `relayed` socket address).
    expect(x.address()).toBe('10.0.0.7');
    expect(
      harness([], true)
        .ask('GET', '/p', [['x-forwarded-for', '1.2.3.4']])!
        .address(),
    ).toBe('1.2.3.4');
    expect(ask('GET', '/p')!.address()).toBe('relay');
  });

  it('answers by the frame: base headers, the client id, no body for HEAD, the log line', () => {
    const { frame, written, lines, ask } = harness([json('{"ok":true}')]);
    let fell = 0;
    answerHot(ask('GET', '/a', [['x-request-id', 'given-1']])!, frame, () => fell++);
    answerHot(ask('HEAD', '/a')!, frame, () => fell++);
    expect(fell).toBe(0);
    expect(written[0]).toEqual({
      status: 200,
      headers: [
        ['content-type', 'application/json'],
        ['x-frame-options', 'DENY'],
        ['x-request-id', 'given-1'],
      ],
      body: '{"ok":true}',
    });
    expect(written[1]!.body).toBeNull();
    expect(frame.answered!.count).toBe(2);
    expect(lines.filter((l) => l.msg === 'request')).toHaveLength(2);
  });

  it('falls through to the app when every route says null; a throw is the error envelope', () => {
    const { frame, written, ask } = harness([() => null]);
    let fell = 0;
    answerHot(ask('GET', '/a')!, frame, () => fell++);
    expect(fell).toBe(1);
    expect(written).toHaveLength(0);
    const failing = harness([
      () => {
        throw new DomainError('NOTE_NOT_FOUND', 'no such note');
      },
    ]);
    answerHot(failing.ask('GET', '/a', [['x-request-id', 'r-9']])!, failing.frame, () => {});
    expect(failing.written[0]!.status).toBe(404);
    expect(JSON.parse(failing.written[0]!.body!).error.code).toBe('NOTE_NOT_FOUND');
    expect(failing.written[0]!.headers).toContainEqual(['x-request-id', 'r-9']);
  });

  it('refuses a header value no HTTP message can carry before anything goes: a 500, never a crash', () => {
    const bad: HotRoute = () => ({ status: 200, headers: [['x-bad', 'a\nb']], body: null });
    const { frame, written, ask } = harness([bad]);
    answerHot(ask('GET', '/a')!, frame, () => {});
    expect(written).toHaveLength(1);
    expect(written[0]!.status).toBe(500);
    expect(JSON.parse(written[0]!.body!).error.code).toBe('INTERNAL_ERROR');
  });
});

describe('masking the tunnel frames', () => {
  it('is skipped only where it guards nothing: TLS or a loopback relay', () => {
    expect(maskNeedless('wss://relay.example/api/v1/relay/tunnel')).toBe(true);
    expect(maskNeedless('ws://127.0.0.1:8787/api/v1/relay/tunnel')).toBe(true);
    expect(maskNeedless('ws://localhost:8787/api/v1/relay/tunnel')).toBe(true);
    expect(maskNeedless('ws://[::1]:8787/api/v1/relay/tunnel')).toBe(true);
    expect(maskNeedless('ws://relay.example/api/v1/relay/tunnel')).toBe(false);
    expect(maskNeedless('ws://10.0.0.2:8787/api/v1/relay/tunnel')).toBe(false);
  });
});
