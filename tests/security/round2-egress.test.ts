/**
 * Findings 4 and 5 over real HTTP against the Node server: a channel's settings.apiBaseUrl may not
 * point the bot token at loopback, link-local or private addresses (in any spelling), unless the
 * operator names the destination in EGRESS_ALLOW; IPv4-compatible IPv6 no longer slips past the
 * plugins' egress guard.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpRequester } from '../helpers/app.ts';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

const BOT_TOKEN = '123456:ABCdefGhIJKlmNoPQRstuVWXyz0123456789';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A loopback server that records every request (it stands for an internal service). */
async function capture() {
  const got: string[] = [];
  const server: Server = createServer((req, res) => {
    got.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true,"result":{}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  return { got, port: (server.address() as AddressInfo).port };
}

async function start(env: Record<string, string> = {}) {
  const s: LiveServer = await liveServer({ PAIRING_MODE: 'open-port', ...env });
  cleanups.push(() => s.stop());
  const send = httpRequester(s.url, { 'x-service-key': s.firstKey });
  const call = (method: string, path: string, body?: unknown) => send(method, path, { body });
  return { ...s, call };
}

const telegram = (apiBaseUrl: string) => ({
  provider: 'telegram',
  name: 'bot',
  credentials: { botToken: BOT_TOKEN },
  settings: { apiBaseUrl },
});

describe('finding 4: no SSRF with credentials through channels', () => {
  it('refuses loopback, link-local and private apiBaseUrls in every spelling; EGRESS_ALLOW names an exception', async () => {
    const internal = await capture();
    const p = internal.port;
    const s = await start();
    const refused = [
      `http://127.0.0.1:${p}`,
      `http://0x7f.1:${p}`,
      `http://2130706433:${p}`,
      `http://[::ffff:127.0.0.1]:${p}`,
      `http://[::127.0.0.1]:${p}`,
      `http://[::1]:${p}`,
      `http://localhost:${p}`,
      'http://169.254.169.254/latest',
      'http://10.1.2.3',
      'http://192.168.0.10',
      'http://[fd00::1]',
      'http://[fe80::1]',
      'http://0.0.0.0',
    ];
    for (const url of refused) {
      const res = await s.call('POST', '/api/v1/channels', telegram(url));
      expect([url, res.status, res.json.error?.code]).toEqual([url, 400, 'VALIDATION_ERROR']);
      expect(res.json.error.message).toContain('settings.apiBaseUrl');
    }
    expect((await s.call('GET', '/api/v1/channels')).json.data).toEqual([]);
    expect(internal.got).toEqual([]);
    // A public address passes.
    expect((await s.call('POST', '/api/v1/channels', telegram('https://93.184.216.34'))).status).toBe(201);

    const allowed = await capture();
    const t = await start({ EGRESS_ALLOW: `127.0.0.1:${allowed.port}` });
    expect(
      (await t.call('POST', '/api/v1/channels', telegram(`http://127.0.0.1:${allowed.port}`))).status,
    ).toBe(201);
    // Only that port: another loopback port stays refused.
    expect((await t.call('POST', '/api/v1/channels', telegram(`http://127.0.0.1:${p}`))).status).toBe(400);
  });
});

describe('finding 5: the plugins egress guard and IPv4-compatible IPv6', () => {
  it('refuses [::127.0.0.1]-style plugin destinations without allowPrivateNetwork', async () => {
    const internal = await capture();
    const s = await start();
    for (const url of [`http://[::127.0.0.1]:${internal.port}/`, `http://[::7f00:1]:${internal.port}/`]) {
      const res = await s.call('POST', '/api/v1/plugins/install', {
        id: 'web-search',
        config: { url },
        enabled: true,
      });
      expect([url, res.status]).toEqual([url, 400]);
      expect(res.json.error.message).toMatch(/allowPrivateNetwork/);
    }
    expect(internal.got).toEqual([]);
  });
});
