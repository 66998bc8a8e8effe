import { jsonLogger } from '../../../adapters/node/logger.ts';
import { loadRelayConfig, RelayConfigError } from '../../relay/config.ts';
import { startRelay } from '../../relay/server.ts';
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
  --redis-url <url>   REDIS_URL: share the queue with other relay instances
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
    const running = await startRelay(config, { logger });
    if (!config.publicBaseUrl)
      logger.warn('RELAY_PUBLIC_BASE_URL is not set; clients are given the listening address', {
        publicBaseUrl: running.publicBaseUrl,
      });
    return new Promise<number>((resolve) => {
      const stop = () =>
        running.stop().then(
          () => resolve(EXIT.ok),
          () => resolve(EXIT.problem),
        );
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
    });
  },
};
