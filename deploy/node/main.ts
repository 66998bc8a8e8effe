import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './server.ts';

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`quire: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}
const server = await startServer(config);
const stop = (signal: string) => {
  server.stop(signal).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', () => stop('SIGINT'));
process.once('SIGTERM', () => stop('SIGTERM'));
