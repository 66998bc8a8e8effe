/** The relay's root (`npm run relay`): the relay service until a stop signal. */
import { failStart, nodeHost, untilStopped } from '../shared/process.ts';
import { startRelayFromEnv } from '../shared/relay.ts';

const host = nodeHost();
const code = await untilStopped(host, () => startRelayFromEnv(process.env)).catch((err: unknown) =>
  failStart(err, host, 'quire-relay'),
);
host.exit(code);
