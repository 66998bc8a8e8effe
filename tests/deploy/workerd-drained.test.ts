/**
 * `drained` (deploy/workerd/drained.ts): whatever the app leaves of a request body is read before
 * the answer is handed back, so workerd never sees a body still streaming after its answer. The
 * runtime half (wrangler dev, 50 refused bodies) is tests/runtime/cross-runtime.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { drained } from '../../deploy/workerd/drained.ts';

/** A request whose body is `chunks` chunks of 1 KiB; `read()` says how many were pulled. */
function streamed(chunks: number) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled === chunks) return c.close();
      pulled++;
      c.enqueue(new Uint8Array(1024).fill(97));
    },
  });
  const req = new Request('http://x/api/v1/notes/a.md', {
    method: 'PUT',
    body,
    duplex: 'half',
  } as RequestInit);
  return { req, read: () => pulled };
}

describe('drained: the body is read up before the answer leaves', () => {
  it('an answer that never touched the body: every chunk was read by then', async () => {
    const { req, read } = streamed(300);
    const res = await drained(req, async () => new Response('no', { status: 401 }));
    expect(res.status).toBe(401);
    expect(read()).toBe(300);
  });

  it('an answer after reading part of the body: the rest was read too', async () => {
    const { req, read } = streamed(300);
    const res = await drained(req, async (r) => {
      const reader = r.body!.getReader();
      for (let i = 0; i < 3; i++) await reader.read();
      return new Response('too large', { status: 413 });
    });
    expect(res.status).toBe(413);
    expect(read()).toBe(300);
  });

  it('a handler that reads the whole body gets every byte, unchanged', async () => {
    const { req } = streamed(64);
    const res = await drained(req, async (r) => new Response(String((await r.arrayBuffer()).byteLength)));
    expect(await res.text()).toBe(String(64 * 1024));
  });

  it('a request without a body goes straight through', async () => {
    const res = await drained(
      new Request('http://x/api/v1/health'),
      async (r) => new Response(String(r.body)),
    );
    expect(await res.text()).toBe('null');
  });
});
