import { describe, expect, it } from 'vitest';
import {
  type AnswerHead,
  decodeFrame,
  decodeReset,
  END,
  encodeFrame,
  encodeHead,
  encodeInline,
  encodeReset,
  type Frame,
  FrameError,
  FrameType,
  frameHead,
  frameJson,
  headLines,
  INLINE,
  inlineBody,
  pairAnswerHead,
  pairAnswerKey,
  type RequestHead,
  requestHead,
  WIRE_VERSION,
  wireVersionMismatch,
} from '../../../relay/protocol/frames.ts';
import { WIRE_LIMITS } from '../../../relay/protocol/limits.ts';
import { statusOfCode } from '../../../relay/service/hub-link.ts';

/** The FrameError `fn` throws (failing the test when it throws none or another error). */
function frameError(fn: () => unknown): FrameError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FrameError);
    return e as FrameError;
  }
  throw new Error('no FrameError thrown');
}

const req: RequestHead = {
  kind: 'http',
  method: 'GET',
  path: '/api/v1/notes/a%2Fb.md?x=1',
  headers: [
    ['x-service-key', 'k'],
    ['x-empty', ''],
    ['x-latin', 'caf\u00e9 \u00ff'],
    ['x-text', 'é€😀'],
  ],
  ttlMs: 29_999,
};
const res: AnswerHead = {
  status: 200,
  headers: [
    ['content-type', 'text/plain'],
    ['etag', '"v1"'],
  ],
};

describe('tunnel frames', () => {
  it('round-trips a connection frame, a head frame and a data frame', () => {
    const hello = decodeFrame(encodeFrame(FrameType.HELLO, 0, 0, { challenge: 'c', version: 1 }));
    expect([hello.type, hello.stream, frameJson(hello)]).toEqual([
      FrameType.HELLO,
      0,
      { challenge: 'c', version: 1 },
    ]);
    const f = decodeFrame(encodeHead(FrameType.REQ, 7, 0, req));
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.REQ, 7, 0]);
    expect(frameHead(f)).toEqual(req);
    expect(inlineBody(f)).toBeNull();
    const d = decodeFrame(encodeFrame(FrameType.DATA, 7, END, new Uint8Array([1, 2, 3])));
    expect([...d.payload]).toEqual([1, 2, 3]);
  });

  it('frames encoded one after another (small ones share pooled chunks) each keep their own bytes', () => {
    // Enough frames to cross several chunks; heads with multi-byte text; inline bodies; one large head.
    const sent: { bytes: Uint8Array; head: RequestHead; body?: number[] }[] = [];
    for (let i = 0; i < 3000; i++) {
      const head: RequestHead = {
        kind: 'http',
        method: 'POST',
        path: `/n/${i}`,
        headers: [['x-note', 'é€😀'.repeat(i % 7)]],
        ttlMs: i,
      };
      if (i % 3 === 0) {
        const body = Array.from({ length: i % 500 }, (_, j) => (i + j) % 256);
        sent.push({ bytes: encodeInline(FrameType.REQ, i + 1, head, Uint8Array.from(body))!, head, body });
      } else sent.push({ bytes: encodeHead(FrameType.REQ, i + 1, END, head), head });
    }
    const big: RequestHead = {
      kind: 'http',
      method: 'GET',
      path: `/${'x'.repeat(20_000)}`,
      headers: [],
      ttlMs: 1,
    };
    sent.push({ bytes: encodeHead(FrameType.REQ, 0xfffffff0, 0, big), head: big });
    sent.forEach(({ bytes, head, body }, i) => {
      const f = decodeFrame(bytes);
      expect([f.stream, frameHead(f)]).toEqual([i === 3000 ? 0xfffffff0 : i + 1, head]);
      if (body) expect([...(inlineBody(f) ?? [])]).toEqual(body);
    });
  });

  it('carries a head and a body that fits one chunk in one INLINE frame', () => {
    const body = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
    const bytes = encodeInline(FrameType.RES, 9, { status: 200, headers: [['a', 'b']] }, body);
    expect(bytes).not.toBeNull();
    const f = decodeFrame(bytes as Uint8Array);
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.RES, 9, END | INLINE]);
    expect(frameHead(f)).toEqual({ status: 200, headers: [['a', 'b']] });
    expect(inlineBody(f)).toEqual(body);
  });

  it('leaves a body larger than one chunk to DATA frames', () => {
    const big = new Uint8Array(WIRE_LIMITS.maxChunkBytes + 1);
    expect(encodeInline(FrameType.REQ, 1, req, big)).toBeNull();
    const exact = new Uint8Array(WIRE_LIMITS.maxChunkBytes);
    expect(
      inlineBody(decodeFrame(encodeInline(FrameType.REQ, 1, req, exact) as Uint8Array))?.byteLength,
    ).toBe(WIRE_LIMITS.maxChunkBytes);
  });

  it('refuses INLINE on other frame types, without END, unknown flags, or a head longer than the frame (for its stream)', () => {
    const ok = encodeInline(FrameType.REQ, 5, req, new Uint8Array(4)) as Uint8Array;
    const onData = ok.slice();
    onData[0] = FrameType.DATA;
    expect(frameError(() => decodeFrame(onData)).stream).toBe(5);
    const noEnd = ok.slice();
    noEnd[5] = INLINE;
    expect(frameError(() => decodeFrame(noEnd)).stream).toBe(5);
    // Bit 2 (once a head-form flag) and any other unknown bit: refused, never guessed at.
    for (const flag of [4, 8, 0x80]) {
      const odd = ok.slice();
      odd[5] = END | INLINE | flag;
      expect(frameError(() => decodeFrame(odd)).stream).toBe(5);
    }
    const lying = ok.slice();
    new DataView(lying.buffer).setUint32(6, 1_000_000);
    expect(frameError(() => frameHead(decodeFrame(lying))).stream).toBe(5);
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
    expect(reset({ code: 'REQUEST_TIMEOUT', status: 408, message: 'slow' }).code).toBe('REQUEST_TIMEOUT');
    // The status is the one sent: the relay fails an undecodable answer as INTERNAL_ERROR with 502.
    expect(reset({ code: 'INTERNAL_ERROR', status: 502, message: 'm' }).status).toBe(502);
    expect(reset({ code: 'NOT_READY', status: 503 }).message).toBe('the server could not answer');
  });

  it('a RESET without a known code or a 400-599 status does not decode (its stream fails alone)', () => {
    const bad = [
      { status: 400, message: 'no code' },
      { code: 'NO_SUCH_CODE', status: 413, message: 'm' },
      { code: '__proto__', status: 400, message: 'm' },
      { code: 'RELAY_TIMEOUT', message: 'no status' },
      { code: 'RELAY_TIMEOUT', status: 200, message: 'm' },
      { code: 'RELAY_TIMEOUT', status: '504', message: 'm' },
      null,
    ];
    for (const body of bad) expect(frameError(() => reset(body)).stream).toBe(3);
    const notJson = decodeFrame(encodeFrame(FrameType.RESET, 3, END, new Uint8Array([0xff])));
    expect(frameError(() => decodeReset(notJson, statusOfCode)).stream).toBe(3);
  });
});

describe('the wire version', () => {
  it('accepts exactly this version; any other reason fits a WebSocket close frame', () => {
    expect(wireVersionMismatch(WIRE_VERSION)).toBeNull();
    for (const odd of [2, 0, '1', null, undefined, {}, 'é😀'.repeat(100), 1e300, Number.NaN]) {
      const why = wireVersionMismatch(odd) as string;
      expect(why).toMatch(/^tunnel wire version [\w.?+-]+ is not supported \(this end speaks 1\)/);
      expect(new TextEncoder().encode(why).byteLength).toBeLessThanOrEqual(123);
    }
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

describe('heads are lines', () => {
  it('round-trip a request head, a pairing head and an answer head, alone and inline', () => {
    const f = decodeFrame(encodeHead(FrameType.REQ, 5, END, req));
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.REQ, 5, END]);
    expect(frameHead(f)).toEqual(req);
    expect(new TextDecoder().decode(f.payload)).toBe(headLines(FrameType.REQ, req));
    const body = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
    const g = decodeFrame(encodeInline(FrameType.RES, 6, res, body) as Uint8Array);
    expect([g.flags, frameHead(g), inlineBody(g)]).toEqual([END | INLINE, res, body]);
    const h = decodeFrame(encodeInline(FrameType.REQ, 7, { ...req, headers: [] }, body) as Uint8Array);
    expect([h.flags, frameHead(h), inlineBody(h)]).toEqual([END | INLINE, { ...req, headers: [] }, body]);
    const pair: RequestHead = { kind: 'pair', code: 'ABCD-1234', ttlMs: 5 };
    expect(frameHead(decodeFrame(encodeHead(FrameType.REQ, 8, END, pair)))).toEqual(pair);
    expect(frameHead(decodeFrame(encodeHead(FrameType.RES, 9, END, { status: 204, headers: [] })))).toEqual({
      status: 204,
      headers: [],
    });
  });

  it('a pairing answer carries the minted key, or refuses', () => {
    const round = (head: AnswerHead) =>
      frameHead<AnswerHead>(decodeFrame(encodeHead(FrameType.RES, 1, END, head)));
    expect(pairAnswerKey(round(pairAnswerHead('quire_sk_abc')))).toBe('quire_sk_abc');
    expect(pairAnswerKey(round(pairAnswerHead(null)))).toBeNull();
    expect(pairAnswerKey(round({ status: 500, headers: [['api-key', 'k']] }))).toBeNull();
    expect(pairAnswerKey(round({ status: 200, headers: [] }))).toBeNull();
  });

  it('a head with no line form is not encoded (FrameError for its stream)', () => {
    const odd: [FrameType, unknown][] = [
      [FrameType.REQ, { ...req, path: '/a\nb' }],
      [FrameType.REQ, { ...req, headers: [['x-a', 'one\ntwo']] }],
      [FrameType.REQ, { ...req, ttlMs: Number.NaN }],
      [FrameType.REQ, { kind: 'pair', code: 'a\nb', ttlMs: 5 }],
      [FrameType.REQ, { kind: 'other', ttlMs: 5 }],
      [FrameType.RES, { status: 200, headers: [['x-a\n', 'b']] }],
      [FrameType.RES, { status: 'ok', headers: [] }],
      [FrameType.PAIR, { pairCodeHash: null }],
    ];
    for (const [type, head] of odd) {
      expect(frameError(() => encodeHead(type, 3, END, head as RequestHead)).stream).toBe(3);
      expect(frameError(() => encodeInline(type, 3, head as RequestHead, new Uint8Array(1))).stream).toBe(3);
    }
  });

  it('a head that does not decode fails its own stream (FrameError with the stream)', () => {
    const bad = (type: FrameType, flags: number, text: string | Uint8Array): Frame => {
      const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
      const out = new Uint8Array(6 + bytes.byteLength);
      out.set([type, 0, 0, 0, 9, flags]);
      out.set(bytes, 6);
      return decodeFrame(out);
    };
    const cases = [
      bad(FrameType.REQ, END, 'http\nGET\n/x'), // a line missing
      bad(FrameType.REQ, END, 'http\nGET\n/x\n5\nname'), // a name without its value
      bad(FrameType.REQ, END, 'pair\nABCD'), // a pairing head without its time
      bad(FrameType.REQ, END, 'other\nGET\n/x\n5'), // an unknown request kind
      bad(FrameType.REQ, END, '{"kind":"http","method":"GET","path":"/x","ttlMs":5}'), // JSON is not a head
      bad(FrameType.RES, END, '200\nname'),
      bad(FrameType.RES, END, '{"status":200}'),
      bad(FrameType.RES, END, '99'), // a status outside 200-599
      bad(FrameType.RES, END, new Uint8Array([0x32, 0xff])), // not UTF-8
      bad(FrameType.DATA, END, '200'), // not a head frame
    ];
    for (const frame of cases) expect(frameError(() => frameHead(frame)).stream).toBe(9);
  });
});
