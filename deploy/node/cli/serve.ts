import { nodeHost, untilStopped } from '../../shared/process.ts';
import { startServerFromEnv } from '../server.ts';
import { type Command, EXIT, parse, startProblem } from './common.ts';

/** `quire serve`: the note server, with the embedded relay unless told otherwise. */
export const serve: Command = {
  help: `Usage: quire serve [options]

Runs the note server, like npm start (without building the client: run npm run build:client
once, or use npm start). Every option is also an environment variable (docs/configuration.md).

Options:
  --port <n>          PORT (default 3000)
  --host <address>    HOST (default 127.0.0.1)
  --data-dir <dir>    DATA_DIR (default ./data)
  --vault-dir <dir>   VAULT_DIR (default DATA_DIR/notes)
  --relay-url <url>   RELAY_URL: register with this relay instead of the embedded one
  --no-relay          PAIRING_MODE=open-port: no relay at all, clients connect directly
  -h, --help          This help

Stops on Ctrl-C or SIGTERM after in-flight requests finish. Exit 1 on a bad configuration.`,
  async run(args, io) {
    const { values } = parse(args, {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      'vault-dir': { type: 'string' },
      'relay-url': { type: 'string' },
      'no-relay': { type: 'boolean' },
    });
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const env = { ...io.env };
    const set = (name: string, v: string | undefined) => {
      if (v !== undefined) env[name] = v;
    };
    set('PORT', values.port);
    set('HOST', values.host);
    set('DATA_DIR', values['data-dir']);
    set('VAULT_DIR', values['vault-dir']);
    set('RELAY_URL', values['relay-url']);
    if (values['no-relay']) env.PAIRING_MODE = 'open-port';
    return untilStopped(nodeHost(io.env), () => startServerFromEnv(env)).catch(startProblem);
  },
};
