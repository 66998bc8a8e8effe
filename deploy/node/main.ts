import { AuthStateError } from '../../core/auth/state.ts';
import { ChannelStateError } from '../../core/channels/store.ts';
import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './server.ts';

/** One clear line and exit 1 for problems an operator must fix; anything else is a bug. */
function fail(err: unknown): never {
  if (err instanceof ConfigError || err instanceof AuthStateError || err instanceof ChannelStateError) {
    process.stderr.write(`quire: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer(loadConfig(process.env));
} catch (err) {
  fail(err);
}
const stop = (signal: string) => {
  server.stop(signal).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
