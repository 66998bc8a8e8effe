/** Shared set-up of the reliability scenarios: a note server child and its API key. */
import { until } from '../../helpers/wait.ts';
import { httpClient } from './http.ts';
import { type ServerProc, startServerProc } from './procs.ts';

/** A note server child, its first API key and serverId. */
export interface KeyedServer {
  server: ServerProc;
  key: Record<string, string>;
  serverId: string;
}

/**
 * Starts a note server child on `dataDir` (API-key mode, no rate limits: the load comes from
 * one address) and reads its first key from the setup payload. With `relayUrl` it registers
 * there and this resolves once its connector is online.
 */
export async function keyedServer(
  dataDir: string,
  opts: { relayUrl?: string; env?: Record<string, string>; name?: string } = {},
): Promise<KeyedServer> {
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    RATE_LIMIT: '0',
    ...(opts.relayUrl ? { PAIRING_MODE: 'relay', RELAY_URL: opts.relayUrl } : { PAIRING_MODE: 'open-port' }),
    ...opts.env,
  };
  const server = await startServerProc(env, opts.name);
  const client = httpClient();
  try {
    const setup = (await client.request('GET', `${server.url}/api/v1/system/setup`)).json.data;
    const key = { 'x-service-key': setup.apiKey as string };
    if (opts.relayUrl)
      await until('the connector to be online', async () => {
        const info = await client.request('GET', `${server.url}/api/v1/system/info`, { headers: key });
        return info.json?.data?.relay?.state === 'online';
      });
    return { server, key, serverId: setup.serverId as string };
  } finally {
    client.close();
  }
}
