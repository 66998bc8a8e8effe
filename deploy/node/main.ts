/** The Node root (`npm start`, bundled to dist/server/main.js): the server until a stop signal. */
import { failStart, readConfig } from '../shared/quire.ts';
import { type RunningServer, startServer } from './server.ts';
import { stopOnSignals } from './signals.ts';

let server: RunningServer;
let graceMs = 0;
try {
  const config = readConfig(process.env, { name: 'node', relayConnector: true });
  graceMs = config.shutdownGraceMs;
  server = await startServer(config);
} catch (err) {
  failStart(err, process.exit);
}
process.exit(await stopOnSignals(server.stop, { graceMs }));
