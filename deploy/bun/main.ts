/** The Bun composition root: `bun deploy/bun/main.ts` (the same env variables as `npm start`). */
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { stdoutLines } from '../../adapters/node/stdout.ts';
import { composeFsServer } from '../shared/fs-server.ts';
import { failStart, nodeHost, untilStopped } from '../shared/process.ts';
import { readConfig } from '../shared/quire.ts';

/** The part of Bun's API this root uses. */
declare const Bun: {
  version: string;
  serve(opts: {
    port: number;
    hostname: string;
    fetch(req: Request, server: BunServer): Response | Promise<Response>;
  }): BunServer & { port: number; stop(closeActive?: boolean): Promise<void> };
};
type BunServer = { requestIP(req: Request): { address: string } | null };

const host = nodeHost(); // Bun's process is Node's.
const code = await untilStopped(host, async () => {
  const config = readConfig(process.env, { name: 'bun', relayConnector: false });
  const { quire, lifecycle } = await composeFsServer(config, {
    runtime: { name: 'bun', version: Bun.version },
    socketAddress: (c) => (c.env as BunServer).requestIP(c.req.raw)?.address,
    logger: jsonLogger(config.logLevel, stdoutLines().write),
  });
  const server = Bun.serve({ port: config.port, hostname: config.host, fetch: quire.app.fetch });
  quire.listening(server.port);
  const running = lifecycle();
  // In-flight requests get the grace, then their connections are closed.
  running.addDoor(async (graceMs) => {
    const cut = setTimeout(() => void server.stop(true), graceMs);
    await server.stop();
    clearTimeout(cut);
  });
  return running;
}).catch((err: unknown) => failStart(err, host));
host.exit(code);
