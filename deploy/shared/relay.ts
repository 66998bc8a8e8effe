/**
 * The standalone relay's start, shared by its root (`npm run relay`, deploy/relay/main.ts) and
 * `quire relay`: the environment read and checked, the JSON logger on stdout, the relay listening.
 */
import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { stdoutLines } from '../../adapters/node/stdout.ts';
import { startRelay } from '../../relay/node/server.ts';
import { type Env, loadRelayConfig } from './config/index.ts';

/** Starts the relay from `env` (throws ConfigError on a bad variable). */
export async function startRelayFromEnv(env: Env) {
  const config = loadRelayConfig(env);
  const logger = jsonLogger(config.logLevel, stdoutLines().write);
  const relay = await startRelay(config, { logger });
  if (!config.publicBaseUrl)
    logger.warn('RELAY_PUBLIC_BASE_URL is not set; clients are given the listening address', {
      publicBaseUrl: relay.publicBaseUrl,
    });
  return relay;
}
