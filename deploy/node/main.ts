/** The Node root (`npm start`, `quire serve`'s bundle): the server until a stop signal. */
import { failStart, nodeHost, untilStopped } from '../shared/process.ts';
import { startServerFromEnv } from './server.ts';

const host = nodeHost();
const code = await untilStopped(host, () => startServerFromEnv(process.env)).catch((err: unknown) =>
  failStart(err, host),
);
host.exit(code);
