/**
 * Answers `req` with `handle`, which reads the body through a pipe fed from here; once `handle`
 * has answered, the rest of the body is read and dropped before the answer leaves. An early
 * refusal (401, 413, 429) answers without reading the body, and under `wrangler dev` a body still
 * streaming after the answer fails with "Can't read from request stream after response has been
 * sent" and restarts the object, failing other clients' requests. Cancelling the body instead cut
 * the connection under wrangler's local proxy; reading it up is what Node's lingering close does.
 */
export async function drained(req: Request, handle: (req: Request) => Promise<Response>): Promise<Response> {
  if (!req.body) return handle(req);
  const reader = req.body.getReader();
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  const writer = pipe.writable.getWriter();
  let answered = (): void => {};
  const answer = new Promise<'answered'>((resolve) => {
    answered = () => resolve('answered');
  });
  const pump = (async () => {
    let forwarding = true;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!forwarding) continue;
      const wrote = writer.write(value).then(
        () => 'written',
        () => 'failed',
      );
      forwarding = (await Promise.race([wrote, answer])) === 'written';
    }
    writer.close().catch(() => {});
  })().catch(() => {});
  try {
    // `duplex` is what Node's fetch asks of a streamed body (the unit test runs there); workerd ignores it.
    const init = { body: pipe.readable, duplex: 'half' } as RequestInit;
    return await handle(new Request(req, init));
  } finally {
    answered();
    await pump;
  }
}
