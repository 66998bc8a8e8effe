import { describe, expect, it } from 'vitest';
import { BOT_TOKEN, channelHarness } from '../helpers/channels-harness.ts';

const telegram = { provider: 'telegram', name: 'My bot', credentials: { botToken: BOT_TOKEN } };
const whatsapp = {
  provider: 'whatsapp',
  name: 'My number',
  credentials: {
    accessToken: 'EAAGm0PX4ZCpsBAsecretaccesstoken',
    phoneNumberId: '106540352242922',
    appSecret: 'app-secret-0123456789',
    verifyToken: 'verify-me-please',
  },
};

describe('the channel routes', () => {
  it('describes every provider, its fields, which are secret, and its webhook URLs', async () => {
    const h = await channelHarness();
    const r = await h.call('GET', '/api/v1/channels/providers');
    expect(r.status).toBe(200);
    expect(r.json.data.map((p: any) => p.id)).toEqual(['telegram', 'whatsapp', 'web']);
    const tg = r.json.data[0];
    expect(tg.fields).toContainEqual(
      expect.objectContaining({ name: 'credentials.botToken', required: true, secret: true }),
    );
    expect(tg.webhook).toMatchObject({
      method: 'POST',
      path: '/api/v1/channels/webhook/telegram',
      url: 'http://127.0.0.1:3000/api/v1/channels/webhook/telegram?secret={secret}',
      relayUrl: `http://relay.test:8787/r/${h.serverId}/api/v1/channels/webhook/telegram?secret={secret}`,
    });
    const wa = r.json.data[1];
    expect(wa.fields.find((f: any) => f.name === 'credentials.phoneNumberId')).toMatchObject({
      secret: false,
    });
    expect(wa.webhook.handshake).toContain('hub.challenge');
    expect(r.json.data[2].webhook).toBeNull();
  });

  it('creates a channel, shows its webhook secret once, and never shows a token or secret again', async () => {
    const h = await channelHarness();
    const created = await h.call('POST', '/api/v1/channels', whatsapp);
    expect(created.status).toBe(201);
    const { channel, webhookSecret, webhook } = created.json.data;
    expect(webhookSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(webhook.url).toBe(
      `http://127.0.0.1:3000/api/v1/channels/webhook/whatsapp?secret=${webhookSecret}`,
    );
    expect(webhook.relayUrl).toBe(
      `http://relay.test:8787/r/${h.serverId}/api/v1/channels/webhook/whatsapp?secret=${webhookSecret}`,
    );
    expect(channel).toMatchObject({
      provider: 'whatsapp',
      name: 'My number',
      enabled: true,
      phoneNumberId: '106540352242922',
      settings: { allowWrite: false, allowedSenders: [], apiBaseUrl: null },
      secrets: { webhookSecret: true, accessToken: true, appSecret: true, verifyToken: true },
      webhookPath: '/api/v1/channels/webhook/whatsapp',
    });
    expect(channel.id).toMatch(/^ch_[0-9a-f]{16}$/);
    const tg = await h.create({ ...telegram, webhookSecret: 'my-own-secret-value-1234' });
    expect(tg.secret).toBe('my-own-secret-value-1234');
    expect(tg.res.json.data.channel.secrets).toEqual({
      webhookSecret: true,
      botToken: true,
      secretToken: false,
    });

    const list = await h.call('GET', '/api/v1/channels');
    const one = await h.call('GET', `/api/v1/channels/${channel.id}`);
    expect(list.json.data.map((c: any) => c.id)).toEqual([channel.id, tg.id]);
    expect(one.json.data).toEqual(channel);
    for (const text of [list.text, one.text]) {
      for (const secret of [
        webhookSecret,
        'my-own-secret-value-1234',
        BOT_TOKEN,
        BOT_TOKEN.split(':')[1]!,
        whatsapp.credentials.accessToken,
        whatsapp.credentials.appSecret,
        whatsapp.credentials.verifyToken,
      ]) {
        expect(text).not.toContain(secret);
      }
    }
    // The stored file keeps only hashes of the secrets it merely compares.
    const stored = (await h.state.get('channels.json'))!;
    expect(stored).not.toContain(webhookSecret);
    expect(stored).not.toContain(whatsapp.credentials.verifyToken);
  });

  it.each([
    [{}, 'provider'],
    [{ provider: 'sms', name: 'x' }, 'provider'],
    [{ provider: 'telegram', name: 'x' }, 'credentials'],
    [{ provider: 'telegram', name: 'x', credentials: {} }, 'credentials.botToken'],
    [{ provider: 'telegram', name: 'x', credentials: { botToken: 'nope' } }, 'credentials.botToken'],
    [{ provider: 'telegram', name: '', credentials: { botToken: BOT_TOKEN } }, 'name'],
    [{ ...telegram, webhookSecret: 'short' }, 'webhookSecret'],
    [{ ...telegram, webhookSecret: 'has spaces in it, not allowed' }, 'webhookSecret'],
    [{ ...telegram, settings: { allowedSenders: 'everyone' } }, 'settings.allowedSenders'],
    [{ ...telegram, settings: { allowWrite: 'yes' } }, 'settings.allowWrite'],
    [{ ...telegram, settings: { apiBaseUrl: 'ftp://x' } }, 'settings.apiBaseUrl'],
    [{ ...whatsapp, credentials: { accessToken: 'x' } }, 'credentials.phoneNumberId'],
    [
      { ...whatsapp, credentials: { ...whatsapp.credentials, phoneNumberId: '+1 555' } },
      'credentials.phoneNumberId',
    ],
    [{ provider: 'web', name: 'x', enabled: 'on' }, 'enabled'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const h = await channelHarness();
    const r = await h.call('POST', '/api/v1/channels', body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('VALIDATION_ERROR');
    expect(r.json.error.details.issues[0].field).toBe(field);
    expect(r.json.error.message).toContain(field);
  });

  it('answers 400 INVALID_JSON for a malformed body, and refuses a webhook secret already in use', async () => {
    const h = await channelHarness();
    const bad = await h.call('POST', '/api/v1/channels', '{"provider":');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_JSON');
    await h.create({ ...telegram, webhookSecret: 'shared-secret-value-0001' });
    const dup = await h.call('POST', '/api/v1/channels', {
      ...telegram,
      webhookSecret: 'shared-secret-value-0001',
    });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe('CONFLICT');
  });

  it('toggles (flip, or set with {enabled}) and deletes; unknown ids are 404 CHANNEL_NOT_FOUND', async () => {
    const h = await channelHarness();
    const { id } = await h.create(telegram);
    const off = await h.call('POST', `/api/v1/channels/${id}/toggle`);
    expect(off.status).toBe(200);
    expect(off.json.data.enabled).toBe(false);
    const on = await h.call('POST', `/api/v1/channels/${id}/toggle`);
    expect(on.json.data.enabled).toBe(true);
    const set = await h.call('POST', `/api/v1/channels/${id}/toggle`, { enabled: true });
    expect(set.json.data.enabled).toBe(true);
    const badToggle = await h.call('POST', `/api/v1/channels/${id}/toggle`, { enabled: 'no' });
    expect(badToggle.status).toBe(400);
    expect(badToggle.json.error.details.issues[0].field).toBe('enabled');
    const del = await h.call('DELETE', `/api/v1/channels/${id}`);
    expect(del.json).toEqual({ success: true, data: { deleted: id } });
    expect((await h.call('GET', '/api/v1/channels')).json.data).toEqual([]);
    for (const [m, p] of [
      ['DELETE', `/api/v1/channels/${id}`],
      ['POST', `/api/v1/channels/${id}/toggle`],
      ['GET', `/api/v1/channels/${id}`],
      ['GET', `/api/v1/channels/${id}/messages`],
    ] as const) {
      const r = await h.call(m, p);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('CHANNEL_NOT_FOUND');
    }
  });

  it('protects everything but the webhooks', async () => {
    const h = await channelHarness();
    for (const [m, p] of [
      ['GET', '/api/v1/channels/providers'],
      ['GET', '/api/v1/channels'],
      ['POST', '/api/v1/channels'],
      ['POST', '/api/v1/channels/ch_0000000000000000/toggle'],
      ['DELETE', '/api/v1/channels/ch_0000000000000000'],
      ['POST', '/api/v1/channels/ch_0000000000000000/messages'],
    ] as const) {
      const r = await h.send(m, p);
      expect(r.status, `${m} ${p}`).toBe(401);
    }
    const hook = await h.deliver('telegram', { update_id: 1 }, {}, '?secret=wrong-secret-value-000');
    expect(hook.status).toBe(401);
    expect(hook.json.error).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
