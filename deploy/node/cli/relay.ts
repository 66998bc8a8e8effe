import { startRelayFromEnv } from '../../shared/relay.ts';
import { serviceCommand } from './common.ts';

/** `quire relay`: the relay service alone. */
export const relay = serviceCommand(
  `Usage: quire relay [options]

Runs the relay, like npm run relay. Every option is also an environment variable
(docs/reference/configuration.md, docs/reference/relay.md).

Options:
  --port <n>          RELAY_PORT (default 8787)
  --host <address>    RELAY_HOST (default 0.0.0.0)
  --public-url <url>  RELAY_PUBLIC_BASE_URL: the address clients are given
  --redis-url <url>   REDIS_URL: share the queue with other relay instances; needs
                      RELAY_QUEUE_KEY (the same 32+ characters on every instance:
                      openssl rand -base64 32), which seals what is queued in Redis
  -h, --help          This help

Stops on Ctrl-C or SIGTERM. Exit 1 on a bad configuration.`,
  {
    port: 'RELAY_PORT',
    host: 'RELAY_HOST',
    'public-url': 'RELAY_PUBLIC_BASE_URL',
    'redis-url': 'REDIS_URL',
  },
  startRelayFromEnv,
);
