import { describe, expect, it } from 'vitest';
import {
  decodeFrame,
  END,
  encodeFrame,
  encodeInline,
  FrameError,
  FrameType,
  frameJson,
  INLINE,
  inlineBody,
} from '../../relay/protocol/frames.ts';
import { WIRE_LIMITS } from '../../relay/protocol/limits.ts';

describe('tunnel frames', () => {
  it('round-trips a head frame and a data frame', () => {
    const f = decodeFrame(encodeFrame(FrameType.REQ, 7, 0, { kind: 'http', path: '/x' }));
    expect([f.type, f.stream, f.flags]).toEqual([FrameType.REQ, 7, 0]);
    expect(frameJson(f)).toEqual({ kind: 'http', path: '/x' });
    expect(inlineBody(f)).toBeNull();
    const d = decodeFrame(encodeFrame(FrameType.DATA, 7, END, new Uint8Array([1, 2, 3])));
    expect([...d.payload]).toEqual([1, 2, 3]);
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
