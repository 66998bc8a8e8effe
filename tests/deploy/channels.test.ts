import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../deploy/shared/config/server.ts';
import { tempDir } from '../helpers/app.ts';
import { BOT_TOKEN, BOT_TOKEN_2 } from '../helpers/channels-harness.ts';
import { runTs } from '../helpers/child.ts';
import { startFakeTelegram, startFakeWhatsApp, telegramUpdate } from '../helpers/fake-channel-providers.ts';
import { until } from '../helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('channel config', () => {
  it('defaults the provider API addresses and validates them', () => {
    expect(loadConfig({}, '/srv').channels).toEqual({
      telegramApiBaseUrl: 'https://api.telegram.org',
      whatsappApiBaseUrl: 'https://graph.facebook.com/v21.0',
    });
    expect(
      loadConfig({ WHATSAPP_API_BASE_URL: 'http://127.0.0.1:9/v22.0/' }, '/srv').channels.whatsappApiBaseUrl,
    ).toBe('http://127.0.0.1:9/v22.0');
    expect(() => loadConfig({ TELEGRAM_API_BASE_URL: 'api.telegram.org' }, '/srv')).toThrow(ConfigError);
    expect(() => loadConfig({ TELEGRAM_API_BASE_URL: 'api.telegram.org' }, '/srv')).toThrow(
      /TELEGRAM_API_BASE_URL/,
    );
    expect(() => loadConfig({ RATE_LIMIT_WEBHOOK_PER_MINUTE: 'lots' }, '/srv')).toThrow(
      /RATE_LIMIT_WEBHOOK_PER_MINUTE/,
    );
    expect(loadConfig({}, '/srv').rateLimits).toMatchObject({ webhookPerMinute: 120 });
  });
});

describe('npm start with channels', () => {
  it('answers a Telegram update through the relay path, and keeps channels, toggles and deletes across a restart', async () => {
    const tg = await startFakeTelegram([BOT_TOKEN, BOT_TOKEN_2]);
    cleanups.push(tg.close);
    const wa = await startFakeWhatsApp([]);
    cleanups.push(wa.close);
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const vault = join(tmp.dir, 'vault');
    await mkdir(vault, { recursive: true });
    await writeFile(join(vault, 'compost.md'), '# Compost\n\nTurn the compost heap every two weeks.\n');
    const env = {
      DATA_DIR: join(tmp.dir, 'data'),
      VAULT_DIR: vault,
      LOG_LEVEL: 'debug',
      TELEGRAM_API_BASE_URL: tg.base,
      WHATSAPP_API_BASE_URL: wa.url,
    };
    const start = async () => {
      const p = runTs('deploy/node/main.ts', env);
      cleanups.push(p.kill);
      const { url } = await p.waitForLog((l) => l.msg === 'listening');
      const relay = await p.waitForLog((l) => l.msg === 'relay listening');
      await p.waitForLog((l) => l.msg === 'index ready');
      return { p, url: url as string, relayUrl: relay.url as string };
    };

    const one = await start();
    const setup = (await (await fetch(`${one.url}/api/v1/system/setup`)).json()).data;
    const headers = { 'x-service-key': setup.apiKey, 'content-type': 'application/json' };
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${one.url}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, text: await r.text() };
    };
    const create = async (body: unknown) => JSON.parse((await api('POST', '/channels', body)).text).data;
    const bot = await create({ provider: 'telegram', name: 'bot', credentials: { botToken: BOT_TOKEN } });
    const gone = await create({ provider: 'telegram', name: 'old', credentials: { botToken: BOT_TOKEN_2 } });
    const number = await create({
      provider: 'whatsapp',
      name: 'number',
      credentials: { accessToken: 'wa-access-token-xyz', phoneNumberId: '1065403' },
    });
    const web = await create({ provider: 'web', name: 'browser' });
    expect(bot.webhook.relayUrl).toBe(
      `${setup.pairing.relayUrl}/r/${setup.serverId}/api/v1/channels/webhook/telegram?secret=${bot.webhookSecret}`,
    );
    expect((await api('POST', `/channels/${number.channel.id}/toggle`)).status).toBe(200);
    expect((await api('DELETE', `/channels/${gone.channel.id}`)).status).toBe(200);
    expect((await api('POST', `/channels/${web.channel.id}/messages`, { message: 'compost' })).status).toBe(
      200,
    );

    // Telegram delivers to the relay form of the webhook URL; the server answers through the fake Bot API.
    const update = JSON.stringify(telegramUpdate(9001, 'compost'));
    await until(
      'the condition',
      async () =>
        (
          await fetch(bot.webhook.relayUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: update,
          })
        ).status === 200,
      10_000,
    );
    await until('the condition', () => tg.sent().length === 1, 10_000);
    expect(tg.sent()[0]).toMatchObject({ chatId: '1001', path: `/bot${BOT_TOKEN}/sendMessage` });
    expect(tg.sent()[0]!.text).toContain('compost.md');
    const before = JSON.parse((await api('GET', '/channels')).text).data;
    await one.p.kill();

    const two = await start();
    const api2 = async (method: string, path: string) => {
      const r = await fetch(`${two.url}/api/v1${path}`, { method, headers });
      return r.text();
    };
    const listText = await api2('GET', '/channels');
    const after = JSON.parse(listText).data;
    expect(after).toEqual(before);
    expect(after.map((c: any) => [c.name, c.enabled])).toEqual([
      ['bot', true],
      ['number', false],
      ['browser', true],
    ]);
    expect(JSON.parse(await api2('GET', `/channels/${web.channel.id}/messages`)).data).toHaveLength(2);
    // The webhook secret still opens the webhook after the restart (directly this time).
    const direct = await fetch(`${two.url}/api/v1/channels/webhook/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-Channel-Secret': bot.webhookSecret },
      body: JSON.stringify(telegramUpdate(9002, 'compost')),
    });
    expect(direct.status).toBe(200);
    await until('the condition', () => tg.sent().length === 2, 10_000);

    const secrets = [BOT_TOKEN, BOT_TOKEN_2, 'wa-access-token-xyz', bot.webhookSecret, number.webhookSecret];
    for (const text of [listText, one.p.out.stdout, one.p.out.stderr, two.p.out.stdout, two.p.out.stderr]) {
      for (const s of secrets) expect(text).not.toContain(s);
    }
  }, 60_000);

  it('refuses to start on a damaged channels.json with one line naming the file', async () => {
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const data = join(tmp.dir, 'data');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, 'channels.json'), '{"v":1,"channels":"x"}');
    const p = runTs('deploy/node/main.ts', { DATA_DIR: data, PAIRING_MODE: 'open-port' });
    cleanups.push(p.kill);
    expect(await p.exited).toBe(1);
    expect(p.out.stderr.trim().split('\n')).toHaveLength(1);
    expect(p.out.stderr).toContain('channels.json in DATA_DIR is damaged');
  });
});
