import type { Socket } from 'node:net';

/** What `uploadThenRead` got: the status line's status (0: none) and the error that ended it. */
export interface UploadOutcome {
  status: number;
  /** The socket error (EPIPE, ECONNRESET) that ended the exchange; undefined when it closed cleanly. */
  error: string | undefined;
  /** Everything read, head and body (latin1). */
  text: string;
}

/**
 * A client that reads nothing until it has written its whole body: a busy client, or one that
 * writes before it reads, the worst case for a server that answers early and closes. It sends
 * a POST declaring `bytes` and all of them, in chunks, each after the kernel took the last,
 * then reads until the connection closes. With `bytes` above what the socket buffers hold
 * (net.ipv4.tcp_wmem tops at 4 MiB by default), it is still writing after an early answer.
 */
export function uploadThenRead(
  socket: Socket,
  opts: { path: string; bytes: number; headers?: Record<string, string> },
): Promise<UploadOutcome> {
  socket.pause();
  let text = '';
  let error: string | undefined;
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    error = e.code ?? e.message;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const write = (bytes: Buffer | string) =>
    new Promise<boolean>((resolve) => socket.write(bytes, (err) => resolve(!err)));
  const head = Object.entries({ 'content-type': 'application/octet-stream', ...opts.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (async () => {
    if (socket.connecting) await new Promise((r) => socket.once('connect', r));
    let ok = await write(
      `POST ${opts.path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}content-length: ${opts.bytes}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 7);
    for (let sent = 0; ok && sent < opts.bytes; sent += chunk.byteLength)
      ok = await write(chunk.subarray(0, Math.min(chunk.byteLength, opts.bytes - sent)));
    socket.resume();
    await closed;
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), error, text };
  })();
}
