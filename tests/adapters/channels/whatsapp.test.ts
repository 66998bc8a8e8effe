import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { channelHarness } from '../../helpers/channels-harness.ts';
import { startFakeWhatsApp, whatsappNotification } from '../../helpers/fake-channel-providers.ts';
import { until } from '../../helpers/wait.ts';

const PHONE_ID = '106540352242922';
const TOKEN = 'EAAGm0PX4ZCpsBA-access-token-1';
const APP_SECRET = 'meta-app-secret-4f9a';
const VERIFY = 'my-verify-token';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const sign = (raw: string, key = APP_SECRET) =>
  `sha256=${createHmac('sha256', key).update(raw).digest('hex')}`;

async function setup(credentials: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const fake = await startFakeWhatsApp([{ phoneNumberId: PHONE_ID, accessToken: TOKEN }]);
  cleanups.push(fake.close);
  const h = await channelHarness({ whatsappBase: fake.url });
  cleanups.push(() => h.channels.close());
  const ch = await h.create({
    provider: 'whatsapp',
    name: 'number',
    credentials: {
      accessToken: TOKEN,
      phoneNumberId: PHONE_ID,
      appSecret: APP_SECRET,
      verifyToken: VERIFY,
      ...credentials,
    },
    ...extra,
  });
  /** Delivers a notification signed (or with `signature`) over the exact bytes sent. */
  const deliver = (body: unknown, signature?: string, query = `?secret=${ch.secret}`) => {
    const raw = JSON.stringify(body);
    return h.deliver('whatsapp', raw, { 'X-Hub-Signature-256': signature ?? sign(raw) }, query);
  };
  const handshake = (params: Record<string, string>) =>
    h.send('GET', `/api/v1/channels/webhook/whatsapp?${new URLSearchParams(params)}`);
  return { fake, h, ch, deliver, handshake };
}

describe('the WhatsApp webhook', () => {
  it('passes the verification handshake with the right verify token and fails with a wrong one', async () => {
    const { h, ch, handshake } = await setup();
    const good = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': VERIFY,
      'hub.challenge': '1158201444',
      secret: ch.secret,
    });
    expect(good.status).toBe(200);
    expect(good.text).toBe('1158201444');
    expect(good.headers.get('content-type')).toMatch(/^text\/plain/);
    // Meta may call a URL without our secret: the verify token alone finds the channel.
    const bare = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': VERIFY,
      'hub.challenge': '42',
    });
    expect(bare.text).toBe('42');
    const wrong = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': 'nope',
      'hub.challenge': '1',
      secret: ch.secret,
    });
    expect(wrong.status).toBe(403);
    expect(wrong.json.error.code).toBe('FORBIDDEN');
    expect(wrong.text).not.toContain('"1"');
    const wrongBare = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': 'nope',
      'hub.challenge': '1',
    });
    expect(wrongBare.status).toBe(403);
    const badSecret = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': VERIFY,
      'hub.challenge': '1',
      secret: 'not-it-000000000',
    });
    expect(badSecret.status).toBe(401);
    const noMode = await handshake({ 'hub.verify_token': VERIFY, 'hub.challenge': '1' });
    expect(noMode.status).toBe(400);
    expect(noMode.json.error.message).toContain('hub.mode');
    const evil = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': VERIFY,
      'hub.challenge': '<script>',
    });
    expect(evil.status).toBe(400);
    // Telegram has no handshake.
    expect((await h.send('GET', '/api/v1/channels/webhook/telegram?hub.mode=subscribe')).status).toBe(404);
  });

  it('uses the webhook secret as the verify token when none was given', async () => {
    const { ch, handshake } = await setup({ verifyToken: undefined as any });
    const r = await handshake({
      'hub.mode': 'subscribe',
      'hub.verify_token': ch.secret,
      'hub.challenge': '77',
    });
    expect(r.text).toBe('77');
  });

  it("answers a message with a valid signature through the Cloud API with the agent's reply", async () => {
    const { fake, h, ch, deliver } = await setup();
    const expected = (await h.agent.chat({ message: 'compost', channel: 'whatsapp' })).reply;
    const r = await deliver(
      whatsappNotification(PHONE_ID, { id: 'wamid.A1', from: '4915112345678', text: 'compost' }),
    );
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({
      status: 'accepted',
      channelId: ch.id,
      accepted: 1,
      duplicate: 0,
      ignored: 0,
    });
    await until('the condition', () => fake.sent().length === 1);
    expect(fake.sent()).toEqual([
      { to: '4915112345678', text: expected, path: `/v21.0/${PHONE_ID}/messages` },
    ]);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(fake.requests[0]!.body).toMatchObject({
      messaging_product: 'whatsapp',
      type: 'text',
      recipient_type: 'individual',
    });
  });

  it('refuses a bad or missing signature with 401, and sends nothing', async () => {
    const { fake, h, deliver, ch } = await setup();
    const body = whatsappNotification(PHONE_ID, { id: 'wamid.B1', from: '4915112345678', text: 'compost' });
    const raw = JSON.stringify(body);
    for (const sig of [sign(raw, 'another-secret'), sign(`${raw} `), 'sha256=abc', '']) {
      const r = await deliver(body, sig);
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('UNAUTHORIZED');
    }
    // Signed right, but the channel secret is wrong.
    const r = await deliver(body, undefined, '?secret=wrong-secret-000000');
    expect(r.status).toBe(401);
    // The signature is over the raw bytes: re-serialized JSON with other spacing does not pass.
    const spaced = JSON.stringify(body, null, 2);
    const mismatch = await h.deliver('whatsapp', spaced, {
      'X-Hub-Signature-256': sign(raw),
      'X-Service-Channel-Secret': ch.secret,
    });
    expect(mismatch.status).toBe(401);
    await h.channels.drain();
    expect(fake.requests).toEqual([]);
  });

  it('answers one message id once, ignores statuses and non-text, and skips other numbers', async () => {
    const { fake, h, deliver } = await setup();
    const msg = whatsappNotification(PHONE_ID, { id: 'wamid.C1', from: '4915112345678', text: 'garden' });
    expect((await deliver(msg)).json.data.status).toBe('accepted');
    expect((await deliver(msg)).json.data).toMatchObject({ status: 'duplicate', duplicate: 1 });
    const statuses = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: PHONE_ID },
                statuses: [{ id: 'wamid.C1', status: 'delivered' }],
              },
            },
          ],
        },
      ],
    };
    expect((await deliver(statuses)).json.data).toMatchObject({
      status: 'ignored',
      reasons: ['no message in this update'],
    });
    const image = whatsappNotification(PHONE_ID, { id: 'wamid.C2', from: '4915112345678', type: 'image' });
    expect((await deliver(image)).json.data).toMatchObject({
      status: 'ignored',
      reasons: ['not text (image)'],
    });
    const other = whatsappNotification('999', { id: 'wamid.C3', from: '4915112345678', text: 'hi' });
    expect((await deliver(other)).json.data).toMatchObject({
      status: 'ignored',
      reasons: ['for another phone number'],
    });
    await until('the condition', () => fake.sent().length === 1);
    await h.channels.drain();
    expect(fake.sent()).toHaveLength(1);
  });

  it('answers only numbers on the allowlist, compared by digits', async () => {
    const { fake, h, deliver } = await setup({}, { settings: { allowedSenders: ['+49 151 12345678'] } });
    const stranger = await deliver(
      whatsappNotification(PHONE_ID, { id: 'wamid.D1', from: '15550001111', text: 'compost' }),
    );
    expect(stranger.json.data).toMatchObject({ status: 'ignored', reasons: ['sender not allowed'] });
    await h.channels.drain();
    expect(fake.requests).toEqual([]);
    const friend = await deliver(
      whatsappNotification(PHONE_ID, { id: 'wamid.D2', from: '4915112345678', text: 'compost' }),
    );
    expect(friend.json.data.status).toBe('accepted');
    await until('the condition', () => fake.sent().length === 1);
    expect(fake.sent()[0]!.to).toBe('4915112345678');
  });

  it.each([
    ['{', 'INVALID_JSON'],
    ['{"object":"whatsapp_business_account"}', 'VALIDATION_ERROR'],
    ['{"entry":[{"changes":[{"value":{"messages":[{"id":"x"}]}}]}]}', 'VALIDATION_ERROR'],
    ['{"entry":"nope"}', 'VALIDATION_ERROR'],
  ])('answers the malformed body %s with 400 %s', async (raw, code) => {
    const { h, ch } = await setup();
    const r = await h.deliver('whatsapp', raw, {
      'X-Hub-Signature-256': sign(raw),
      'X-Service-Channel-Secret': ch.secret,
    });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(code);
  });

  it('logs a refused reply without the access token', async () => {
    const lines: string[] = [];
    const log = (lvl: string) => (msg: string, f?: Record<string, unknown>) =>
      lines.push(`${lvl} ${msg} ${JSON.stringify(f ?? {})}`);
    const fake = await startFakeWhatsApp([{ phoneNumberId: PHONE_ID, accessToken: 'the-real-token' }]);
    cleanups.push(fake.close);
    const h = await channelHarness({
      whatsappBase: fake.url,
      logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    });
    const ch = await h.create({
      provider: 'whatsapp',
      name: 'n',
      credentials: { accessToken: TOKEN, phoneNumberId: PHONE_ID },
    });
    await h.deliver(
      'whatsapp',
      whatsappNotification(PHONE_ID, { id: 'wamid.F1', from: '49151', text: 'hi' }),
      {
        'X-Service-Channel-Secret': ch.secret,
      },
    );
    await until('the condition', () => fake.requests.length === 1);
    await h.channels.drain();
    const failed = lines.find((l) => l.includes('channel reply failed'));
    expect(failed).toContain('401');
    expect(failed).toContain('Invalid OAuth access token');
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines.join('\n')).not.toContain(ch.secret);
  });
});
