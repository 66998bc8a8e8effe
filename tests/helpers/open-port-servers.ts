/** Live open-port servers for a test file (vitest only: it registers an afterEach; bench scripts use live-server.ts). */
import { afterEach } from 'vitest';
import { httpRequester } from './app.ts';
import { type LiveServer, liveServer } from './live-server.ts';

/**
 * `start(env)` for a test file: a live open-port server with `call` (JSON over HTTP, its key
 * sent), each stopped after the test that started it.
 */
export function openPortServers() {
  const servers: LiveServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.stop();
  });
  return async (env: Record<string, string> = {}) => {
    const s = await liveServer({ PAIRING_MODE: 'open-port', ...env });
    servers.push(s);
    const send = httpRequester(s.url, { 'x-service-key': s.firstKey });
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      send(method, path, { body, headers });
    return { ...s, call };
  };
}
