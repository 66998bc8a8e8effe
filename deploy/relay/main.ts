import { jsonLogger } from '../../adapters/node/logger.ts';
import { loadRelayConfig, type RelayConfig, RelayConfigError } from '../shared/config/relay.ts';
import { startRelay } from './server.ts';

let config: RelayConfig;
try {
  config = loadRelayConfig(process.env);
} catch (err) {
  if (err instanceof RelayConfigError) {
    process.stderr.write(`quire-relay: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
const logger = jsonLogger(config.logLevel);
const relay = await startRelay(config, { logger });
if (!config.publicBaseUrl)
  logger.warn('RELAY_PUBLIC_BASE_URL is not set; clients are given the listening address', {
    publicBaseUrl: relay.publicBaseUrl,
  });
const stop = () => {
  relay.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
