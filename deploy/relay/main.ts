/** The relay's root (`npm run relay`): the relay service until a stop signal. */
import { jsonLogger } from '../../adapters/node/logger.ts';
import { startRelay } from '../../relay/node/server.ts';
import { ConfigError, loadRelayConfig, type RelayConfig } from '../shared/config/index.ts';

let config: RelayConfig;
try {
  config = loadRelayConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`quire-relay: ${err.message}\n`);
  process.exit(1);
}
// The stop signals are taken before the relay starts, so none can arrive in a window where Node's
// default action (an exit by signal, no drain) would still apply.
let signalled: () => void = () => {};
const stopSignal = new Promise<void>((resolve) => {
  signalled = resolve;
});
process.once('SIGINT', () => signalled());
process.once('SIGTERM', () => signalled());
const logger = jsonLogger(config.logLevel);
const relay = await startRelay(config, { logger });
if (!config.publicBaseUrl)
  logger.warn('RELAY_PUBLIC_BASE_URL is not set; clients are given the listening address', {
    publicBaseUrl: relay.publicBaseUrl,
  });
await stopSignal;
await relay.stop().then(
  () => process.exit(0),
  () => process.exit(1),
);
