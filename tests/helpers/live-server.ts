import { join } from 'node:path';
import { startServer } from '../../deploy/node/server.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { tempDir } from './app.ts';
import { capturingLogger } from './logger.ts';
import { until } from './wait.ts';

/**
 * The real Node server (deploy/node) on 127.0.0.1 port 0 with its data in a temp dir; in relay
 * pairing mode with the embedded relay on port 0, waited on until it is online.
 */
export async function liveServer(env: Record<string, string> = {}) {
  const tmp = await tempDir('quire-live-');
  const { logger, lines } = capturingLogger();
  const config = loadConfig({
    PORT: '0',
    RELAY_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: join(tmp.dir, 'data'),
    LOG_LEVEL: 'debug',
    ...env,
  });
  const server = await startServer(config, { logger });
  await server.ready;
  const setup = async () => {
    const res = await fetch(`${server.url}/api/v1/system/setup`);
    return ((await res.json()) as any).data;
  };
  const first = await setup();
  if (first.pairing.mode === 'relay') {
    await until(
      'the condition',
      async () => {
        const res = await fetch(`${server.url}/api/v1/system/info`, {
          headers: { 'x-service-key': first.apiKey },
        });
        return ((await res.json()) as any).data.relay.state === 'online';
      },
      15_000,
    );
  }
  return {
    url: server.url,
    relayUrl: first.pairing.relayUrl as string | null,
    firstKey: first.apiKey as string,
    vaultDir: config.vaultDir,
    logs: lines,
    setup,
    async stop() {
      await server.stop();
      await tmp.cleanup();
    },
  };
}

export type LiveServer = Awaited<ReturnType<typeof liveServer>>;

/**
 * Another client: a call of `/api/v1<path>` on the server at `to.url` with `to.firstKey`; its
 * status and parsed body. Reads `to` at each call (a test may point it at a restarted server).
 */
export const restOn = (to: { url: string; firstKey: string }, method: string, path: string, body?: unknown) =>
  fetch(`${to.url}/api/v1${path}`, {
    method,
    headers: { 'x-service-key': to.firstKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
