/** A free TCP port on 127.0.0.1, for a child that must be told its port before it starts; a closed one. */
import { createServer } from 'node:net';

/** Asks the system for a free port on 127.0.0.1 and releases it. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** The address of a loopback port that nothing listens on (bound, then closed). */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
