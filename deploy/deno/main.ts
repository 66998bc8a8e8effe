/** The Deno composition root: `deno run -A deploy/deno/main.ts` (the same env variables as `npm start`). */
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { flushLogsSync, stdoutLines } from '../../adapters/node/stdout.ts';
import { composeFsServer } from '../shared/fs-server.ts';
import { denoHost, failStart, untilStopped } from '../shared/process.ts';
import { readConfig } from '../shared/quire.ts';

/** The part of Deno's API this root uses. */
declare const Deno: {
  version: { deno: string };
  env: { toObject(): Record<string, string> };
  serve(
    opts: { port: number; hostname: string; onListen(addr: { port: number }): void },
    handler: (req: Request, info: DenoServeInfo) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
};
type DenoServeInfo = { remoteAddr: { hostname: string } };

// Deno.exit skips process 'exit' handlers: the buffered log lines are written first.
const host = denoHost(flushLogsSync);
const code = await untilStopped(host, async () => {
  const config = readConfig(Deno.env.toObject(), { name: 'deno', relayConnector: false });
  const { quire, lifecycle } = await composeFsServer(config, {
    runtime: { name: 'deno', version: Deno.version.deno },
    socketAddress: (c) => (c.env as DenoServeInfo).remoteAddr.hostname,
    logger: jsonLogger(config.logLevel, stdoutLines().write),
  });
  const server = Deno.serve(
    { port: config.port, hostname: config.host, onListen: ({ port }) => quire.listening(port) },
    quire.app.fetch,
  );
  const running = lifecycle();
  running.addDoor(() => server.shutdown());
  return running;
}).catch((err: unknown) => failStart(err, host));
host.exit(code);
