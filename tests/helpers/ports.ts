/** A free TCP port on 127.0.0.1, for a child that must be told its port before it starts. */
import { createServer } from 'node:net';

/** Asks the system for a free port on 127.0.0.1 and releases it. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
