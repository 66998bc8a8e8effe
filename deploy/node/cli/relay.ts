import { jsonLogger } from '../../../adapters/node/logger.ts';
import { startRelay } from '../../../relay/node/server.ts';
import { loadRelayConfig, RelayConfigError } from '../../shared/config/relay.ts';
import { CliProblem, type Command, EXIT, parse } from './common.ts';

/** `quire relay`: the relay service alone. */
export const relay: Command = {
  help: `Usage: quire relay [options]

Runs the relay, like npm run relay. Every option is also an environment variable
(docs/configuration.md, docs/relay.md).

Options:
  --port <n>          RELAY_PORT (default 8787)
  --host <address>    RELAY_HOST (default 0.0.0.0)
  --public-url <url>  RELAY_PUBLIC_BASE_URL: the address clients are given
  --redis-url <url>   REDIS_URL: share the queue with other relay instances; needs
                      RELAY_QUEUE_KEY (the same 32+ characters on every instance:
                      openssl rand -base64 32), which seals what is queued in Redis
  -h, --help          This help

Stops on Ctrl-C or SIGTERM. Exit 1 on a bad configuration.`,
  async run(args, io) {
    const { values } = parse(args, {
      port: { type: 'string' },
      host: { type: 'string' },
      'public-url': { type: 'string' },
      'redis-url': { type: 'string' },
    });
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const env = { ...io.env };
    if (values.port !== undefined) env.RELAY_PORT = values.port;
    if (values.host !== undefined) env.RELAY_HOST = values.host;
    if (values['public-url'] !== undefined) env.RELAY_PUBLIC_BASE_URL = values['public-url'];
    if (values['redis-url'] !== undefined) env.REDIS_URL = values['redis-url'];
    let config: ReturnType<typeof loadRelayConfig>;
    try {
      config = loadRelayConfig(env);
    } catch (err) {
      if (err instanceof RelayConfigError) throw new CliProblem(err.message);
      throw err;
    }
    const logger = jsonLogger(config.logLevel);
    // The stop signals are taken before the relay starts, so none can arrive in a window where
    // Node's default action (an exit by signal, no drain) would still apply.
    let signalled: () => void = () => {};
    const gotSignal = new Promise<void>((resolve) => {
      signalled = resolve;
    });
    process.once('SIGINT', signalled);
    process.once('SIGTERM', signalled);
    let running: Awaited<ReturnType<typeof startRelay>>;
    try {
      running = await startRelay(config, { logger });
    } catch (err) {
      process.off('SIGINT', signalled);
      process.off('SIGTERM', signalled);
      throw err;
    }
    if (!config.publicBaseUrl)
      logger.warn('RELAY_PUBLIC_BASE_URL is not set; clients are given the listening address', {
        publicBaseUrl: running.publicBaseUrl,
      });
    await gotSignal;
    return running.stop().then(
      () => EXIT.ok,
      () => EXIT.problem,
    );
  },
};
