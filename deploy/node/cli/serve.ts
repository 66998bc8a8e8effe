import { startServerFromEnv } from '../server.ts';
import { serviceCommand } from './common.ts';

/** `quire serve`: the note server, with the embedded relay unless told otherwise. */
export const serve = serviceCommand(
  `Usage: quire serve [options]

Runs the note server, like npm start (without building the client: run npm run build:client
once, or use npm start). Every option is also an environment variable (docs/reference/configuration.md).

Options:
  --port <n>          PORT (default 3000)
  --host <address>    HOST (default 127.0.0.1)
  --data-dir <dir>    DATA_DIR (default ./data)
  --vault-dir <dir>   VAULT_DIR (default DATA_DIR/notes)
  --relay-url <url>   RELAY_URL: register with this relay instead of the embedded one
  --no-relay          PAIRING_MODE=open-port: no relay at all, clients connect directly
  -h, --help          This help

Stops on Ctrl-C or SIGTERM after in-flight requests finish. Exit 1 on a bad configuration.`,
  {
    port: 'PORT',
    host: 'HOST',
    'data-dir': 'DATA_DIR',
    'vault-dir': 'VAULT_DIR',
    'relay-url': 'RELAY_URL',
    'no-relay': ['PAIRING_MODE', 'open-port'],
  },
  startServerFromEnv,
);
