/** The Deno composition root: `deno run -A deploy/deno/main.ts` (the same env variables as `npm start`). */
import { composeFsServer, failStart, flushLogsSync } from '../shared/fs-server.ts';

/** The part of Deno's API this root uses. */
declare const Deno: {
  version: { deno: string };
  env: { toObject(): Record<string, string> };
  exit(code: number): never;
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', fn: () => void): void;
  serve(
    opts: { port: number; hostname: string; onListen(addr: { port: number }): void },
    handler: (req: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
};
type DenoServeInfo = { remoteAddr: { hostname: string } };

const quire = await composeFsServer(Deno.env.toObject(), {
  runtime: { name: 'deno', version: Deno.version.deno },
  socketAddress: (c) => (c.env as DenoServeInfo).remoteAddr.hostname,
}).catch((err) => failStart(err, Deno.exit));
const server = Deno.serve(
  { port: quire.config.port, hostname: quire.config.host, onListen: ({ port }) => quire.listening(port) },
  quire.app.fetch,
);
quire.addDoor(() => server.shutdown());
// Deno.exit skips process 'exit' handlers: the buffered log lines are written first.
const stop = (signal: string) =>
  quire.stop(signal).then(() => {
    flushLogsSync();
    Deno.exit(0);
  });
Deno.addSignalListener('SIGINT', () => void stop('SIGINT'));
Deno.addSignalListener('SIGTERM', () => void stop('SIGTERM'));
