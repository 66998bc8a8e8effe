import { AuthStateError } from '../../core/auth/state.ts';
import { ChannelStateError } from '../../core/channels/store.ts';
import { ConfigError, loadConfig } from '../shared/config/server.ts';
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
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
  server = await startServer(config);
} catch (err) {
  fail(err);
}
const stop = (signal: string) => {
  // A stop that cannot finish (a stuck disk, a hung handler) must still end the process.
  setTimeout(() => {
    process.stderr.write(`quire: shutdown took longer than SHUTDOWN_GRACE_MS + 10 s; exiting\n`);
    process.exit(1);
  }, config.shutdownGraceMs + 10_000).unref();
  server.stop(signal).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
