/** The Bun composition root: `bun deploy/bun/main.ts` (the same env variables as `npm start`). */
import { composeFsServer, failStart } from '../shared/fs-server.ts';

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

const quire = await composeFsServer(process.env, {
  runtime: { name: 'bun', version: Bun.version },
  socketAddress: (c) => (c.env as BunServer).requestIP(c.req.raw)?.address,
}).catch((err) => failStart(err, process.exit));
const server = Bun.serve({ port: quire.config.port, hostname: quire.config.host, fetch: quire.app.fetch });
quire.listening(server.port);
// In-flight requests get the grace, then their connections are closed.
quire.addDoor(async (graceMs) => {
  const cut = setTimeout(() => void server.stop(true), graceMs);
  await server.stop();
  clearTimeout(cut);
});
const stop = (signal: string) => quire.stop(signal).then(() => process.exit(0));
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
