import { nodeHost, untilStopped } from '../../shared/process.ts';
import { startRelayFromEnv } from '../../shared/relay.ts';
import { type Command, EXIT, parse, startProblem } from './common.ts';

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
    return untilStopped(nodeHost(io.env), () => startRelayFromEnv(env)).catch(startProblem);
  },
};
