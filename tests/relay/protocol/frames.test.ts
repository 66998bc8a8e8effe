import { describe, expect, it } from 'vitest';
import {
  decodeFrame,
  decodeReset,
  END,
  encodeFrame,
  encodeHead,
  encodeInline,
  encodeReset,
  FrameError,
  FrameType,
  frameHead,
  frameJson,
  headLines,
  INLINE,
  inlineBody,
  LINES,
  requestHead,
} from '../../../relay/protocol/frames.ts';
import { WIRE_LIMITS } from '../../../relay/protocol/limits.ts';
import { statusOfCode } from '../../../relay/service/tunnel-hub.ts';

describe('tunnel frames', () => {
  it('round-trips a head frame and a data frame', () => {
    const f = decodeFrame(encodeFrame(FrameType.REQ, 7, 0, { kind: 'http', path: '/x' }));
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.REQ, 7, 0]);
    expect(frameJson(f)).toEqual({ kind: 'http', path: '/x' });
    expect(inlineBody(f)).toBeNull();
    const d = decodeFrame(encodeFrame(FrameType.DATA, 7, END, new Uint8Array([1, 2, 3])));
    expect([...d.payload]).toEqual([1, 2, 3]);
  });

  it('frames encoded one after another (small ones share pooled chunks) each keep their own bytes', () => {
    // Enough frames to cross several chunks; heads with multi-byte text; inline bodies; one large head.
    const sent: { bytes: Uint8Array; head: unknown; body?: number[] }[] = [];
    for (let i = 0; i < 3000; i++) {
      const head = { kind: 'http', path: `/n/${i}`, note: 'é€😀'.repeat(i % 7), stream: i };
      if (i % 3 === 0) {
        const body = Array.from({ length: i % 500 }, (_, j) => (i + j) % 256);
        sent.push({ bytes: encodeInline(FrameType.RES, i + 1, head, Uint8Array.from(body))!, head, body });
      } else sent.push({ bytes: encodeFrame(FrameType.REQ, i + 1, END, head), head });
    }
    const big = { kind: 'http', path: `/${'x'.repeat(20_000)}` };
    sent.push({ bytes: encodeFrame(FrameType.REQ, 0xfffffff0, 0, big), head: big });
    sent.forEach(({ bytes, head, body }, i) => {
      const f = decodeFrame(bytes);
      expect([f.stream, frameJson(f)]).toEqual([i === 3000 ? 0xfffffff0 : i + 1, head]);
      if (body) expect([...(inlineBody(f) ?? [])]).toEqual(body);
    });
  });

  it('carries a head and a body that fits one chunk in one INLINE frame', () => {
    const body = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
    const bytes = encodeInline(FrameType.RES, 9, { status: 200, headers: [['a', 'b']] }, body);
    expect(bytes).not.toBeNull();
    const f = decodeFrame(bytes as Uint8Array);
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.RES, 9, END | INLINE]);
    expect(frameJson(f)).toEqual({ status: 200, headers: [['a', 'b']] });
    expect(inlineBody(f)).toEqual(body);
  });

  it('leaves a body larger than one chunk to DATA frames', () => {
    const big = new Uint8Array(WIRE_LIMITS.maxChunkBytes + 1);
    expect(encodeInline(FrameType.REQ, 1, { kind: 'http' }, big)).toBeNull();
    const exact = new Uint8Array(WIRE_LIMITS.maxChunkBytes);
    expect(inlineBody(decodeFrame(encodeInline(FrameType.REQ, 1, {}, exact) as Uint8Array))?.byteLength).toBe(
      WIRE_LIMITS.maxChunkBytes,
    );
  });

  it('refuses INLINE on other frame types, without END, or with a head longer than the frame (for its stream)', () => {
    const ok = encodeInline(FrameType.REQ, 5, { kind: 'http' }, new Uint8Array(4)) as Uint8Array;
    const onData = ok.slice();
    onData[0] = FrameType.DATA;
    expect(() => decodeFrame(onData)).toThrow(FrameError);
    const noEnd = ok.slice();
    noEnd[5] = INLINE;
    expect(() => decodeFrame(noEnd)).toThrow(FrameError);
    const lying = ok.slice();
    new DataView(lying.buffer).setUint32(6, 1_000_000);
    const err = (() => {
      try {
        frameJson(decodeFrame(lying));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(FrameError);
    expect((err as FrameError).stream).toBe(5);
  });
});

describe('RESET frames carry the error code', () => {
  const reset = (body: unknown) =>
    decodeReset(decodeFrame(encodeFrame(FrameType.RESET, 3, END, body)), statusOfCode);

  it('round-trips code, status and message', () => {
    const f = decodeFrame(encodeReset(3, { code: 'PAYLOAD_TOO_LARGE', status: 413, message: 'too big' }));
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.RESET, 3, END]);
    expect(decodeReset(f, statusOfCode)).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      status: 413,
      message: 'too big',
    });
    // A code no status would guess travels as it is.
    expect(reset({ code: 'REQUEST_TIMEOUT', status: 408, message: 'slow' }).code).toBe('REQUEST_TIMEOUT');
    expect(reset({ code: 'NOT_READY', status: 503, message: 'busy' }).code).toBe('NOT_READY');
  });

  it("maps an older peer's RESET (status only) to the code its status meant", () => {
    const legacy = (status: unknown) => reset({ status, message: 'm' });
    expect(legacy(400)).toEqual({ code: 'VALIDATION_ERROR', status: 400, message: 'm' });
    expect(legacy(413).code).toBe('PAYLOAD_TOO_LARGE');
    expect(legacy(503).code).toBe('SERVER_OFFLINE');
    expect(legacy(504).code).toBe('RELAY_TIMEOUT');
    expect(legacy(500).code).toBe('INTERNAL_ERROR');
    expect(legacy(418).code).toBe('INTERNAL_ERROR');
    // No usable status: a 502.
    expect(legacy(200)).toEqual({ code: 'INTERNAL_ERROR', status: 502, message: 'm' });
    expect(legacy('x').status).toBe(502);
  });

  it('an unknown code or a code without status falls back safely', () => {
    expect(reset({ code: 'NO_SUCH_CODE', status: 413, message: 'm' }).code).toBe('PAYLOAD_TOO_LARGE');
    expect(reset({ code: '__proto__', status: 400, message: 'm' }).code).toBe('VALIDATION_ERROR');
    expect(reset({ code: 'RELAY_TIMEOUT', message: 'm' })).toEqual({
      code: 'RELAY_TIMEOUT',
      status: 504,
      message: 'm',
    });
    expect(reset(null)).toEqual({
      code: 'INTERNAL_ERROR',
      status: 502,
      message: 'the server could not answer',
    });
    expect(() =>
      decodeReset(decodeFrame(encodeFrame(FrameType.RESET, 3, END, new Uint8Array([0xff]))), statusOfCode),
    ).toThrow(FrameError);
  });
});

describe('the relayed request head', () => {
  it('is built from a proxied request or a queued item alike', () => {
    const http = {
      kind: 'http' as const,
      method: 'PUT',
      path: '/a?b',
      headers: [['x', 'y']] as [string, string][],
    };
    expect(requestHead(http)).toEqual({ ...http, ttlMs: 0 });
    expect(requestHead({ ...http, body: 'AA==', requestId: 'r', deadline: 9 } as typeof http, 50)).toEqual({
      ...http,
      ttlMs: 50,
    });
    expect(requestHead({ kind: 'pair', code: 'c' })).toEqual({ kind: 'pair', code: 'c', ttlMs: 0 });
  });
});

describe('line heads (flag LINES)', () => {
  const req = {
    kind: 'http' as const,
    method: 'GET',
    path: '/api/v1/notes/a%2Fb.md?x=1',
    headers: [
      ['x-service-key', 'k'],
      ['x-empty', ''],
      ['x-latin', 'caf\u00e9 \u00ff'],
      ['x-text', 'é€😀'],
    ] as [string, string][],
    ttlMs: 29_999,
  };
  const res = {
    status: 200,
    headers: [
      ['content-type', 'text/plain'],
      ['etag', '"v1"'],
    ] as [string, string][],
  };

  it('round-trip a request head and an answer head, alone and inline, equal to their JSON form', () => {
    const f = decodeFrame(encodeHead(FrameType.REQ, 5, END, req, true));
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.REQ, 5, END | LINES]);
    expect(frameHead(f)).toEqual(req);
    expect(frameHead(decodeFrame(encodeHead(FrameType.REQ, 5, END, req, false)))).toEqual(req);
    const body = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
    const g = decodeFrame(encodeInline(FrameType.RES, 6, res, body, true) as Uint8Array);
    expect([g.flags, frameHead(g), inlineBody(g)]).toEqual([END | INLINE | LINES, res, body]);
    const h = decodeFrame(encodeInline(FrameType.REQ, 7, { ...req, headers: [] }, body, true) as Uint8Array);
    expect([h.flags, frameHead(h), inlineBody(h)]).toEqual([
      END | INLINE | LINES,
      { ...req, headers: [] },
      body,
    ]);
  });

  it('are sent only when asked, and never for a head lines cannot carry (it goes as JSON)', () => {
    expect(decodeFrame(encodeHead(FrameType.RES, 1, END, res)).flags).toBe(END);
    expect(decodeFrame(encodeInline(FrameType.RES, 1, res, new Uint8Array(3)) as Uint8Array).flags).toBe(
      END | INLINE,
    );
    const odd = [
      { type: FrameType.REQ, head: { kind: 'pair', code: 'ABC', ttlMs: 5 } },
      { type: FrameType.REQ, head: { ...req, path: '/a\nb' } },
      { type: FrameType.REQ, head: { ...req, headers: [['x-a', 'one\ntwo']] } },
      { type: FrameType.REQ, head: { ...req, ttlMs: Number.NaN } },
      { type: FrameType.RES, head: { apiKey: 'k' } },
      { type: FrameType.RES, head: { status: 200, headers: [['x-a\n', 'b']] } },
      { type: FrameType.RES, head: null },
      { type: FrameType.PAIR, head: { pairCodeHash: null } },
    ];
    for (const { type, head } of odd) {
      expect(headLines(type, head)).toBeNull();
      const f = decodeFrame(encodeHead(type, 3, END, head, true));
      expect([f.flags, frameJson(f)]).toEqual([END, JSON.parse(JSON.stringify(head))]);
    }
  });

  it('a line head that does not decode fails its own stream (FrameError with the stream)', () => {
    const bad = (type: FrameType, flags: number, text: string | Uint8Array) => {
      const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
      const out = new Uint8Array(6 + bytes.byteLength);
      out.set([type, 0, 0, 0, 9, flags]);
      out.set(bytes, 6);
      return out;
    };
    const cases = [
      bad(FrameType.REQ, END | LINES, 'http\nGET\n/x'), // a line missing
      bad(FrameType.REQ, END | LINES, 'http\nGET\n/x\n5\nname'), // a name without its value
      bad(FrameType.REQ, END | LINES, 'pair\nGET\n/x\n5'), // only http heads go as lines
      bad(FrameType.RES, END | LINES, '200\nname'),
      bad(FrameType.RES, END | LINES, new Uint8Array([0x32, 0xff])), // not UTF-8
    ];
    for (const bytes of cases) {
      let err: unknown;
      try {
        frameHead(decodeFrame(bytes));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FrameError);
      expect((err as FrameError).stream).toBe(9);
    }
    // LINES on a frame that carries no head is refused at decoding.
    expect(() => decodeFrame(bad(FrameType.DATA, END | LINES, 'x'))).toThrow(FrameError);
  });
});
