import { afterEach, describe, expect, it } from 'vitest';
import { BOT_TOKEN, BOT_TOKEN_2, channelHarness } from '../../helpers/channels-harness.ts';
import { startFakeTelegram, telegramUpdate } from '../../helpers/fake-channel-providers.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(opts: Parameters<typeof channelHarness>[0] = {}) {
  const fake = await startFakeTelegram([BOT_TOKEN, BOT_TOKEN_2]);
  cleanups.push(fake.close);
  const h = await channelHarness({ telegramBase: fake.base, ...opts });
  cleanups.push(() => h.channels.close());
  const bot = (extra: Record<string, unknown> = {}) =>
    h.create({ provider: 'telegram', name: 'bot', credentials: { botToken: BOT_TOKEN }, ...extra });
  return { fake, h, bot };
}

describe('the Telegram webhook', () => {
  it("answers an update with the right secret by one sendMessage carrying the agent's reply", async () => {
    const { fake, h, bot } = await setup();
    const { id, secret } = await bot();
    const expected = (await h.agent.chat({ message: 'compost', channel: 'telegram' })).reply;
    expect(expected).toContain('garden/compost.md');
    const r = await h.deliver('telegram', telegramUpdate(501, 'compost'), {
      'X-Service-Channel-Secret': secret,
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      success: true,
      data: { status: 'accepted', channelId: id, accepted: 1, duplicate: 0, ignored: 0 },
    });
    await until('the condition', () => fake.sent().length === 1);
    expect(fake.sent()).toEqual([{ chatId: '1001', text: expected, path: `/bot${BOT_TOKEN}/sendMessage` }]);
    await h.channels.drain();
    expect(fake.sent()).toHaveLength(1);
  });

  it('answers the same update delivered twice once', async () => {
    const { fake, h, bot } = await setup();
    const { secret } = await bot();
    const update = telegramUpdate(777, 'garden plan');
    const first = await h.deliver('telegram', update, {}, `?secret=${secret}`);
    const again = await h.deliver('telegram', update, {}, `?secret=${secret}`);
    expect(first.json.data.status).toBe('accepted');
    expect(again.json.data).toMatchObject({ status: 'duplicate', accepted: 0, duplicate: 1 });
    await until('the condition', () => fake.sent().length >= 1);
    await h.channels.drain();
    expect(fake.sent()).toHaveLength(1);
  });

  it('refuses a wrong or missing secret with 401 in the envelope, and sends nothing', async () => {
    const { fake, h, bot } = await setup();
    const { secret } = await bot();
    for (const headers of [
      {},
      { 'X-Service-Channel-Secret': `${secret}x` },
      { 'X-Service-Channel-Secret': 'a' },
    ]) {
      const r = await h.deliver('telegram', telegramUpdate(1, 'hi'), headers as Record<string, string>);
      expect(r.status).toBe(401);
      expect(r.json.success).toBe(false);
      expect(r.json.error.code).toBe('UNAUTHORIZED');
    }
    // A secret of another provider's channel does not open this provider's webhook.
    const wa = await h.create({
      provider: 'whatsapp',
      name: 'wa',
      credentials: { accessToken: 'tok-wa-0123', phoneNumberId: '1234' },
    });
    const cross = await h.deliver('telegram', telegramUpdate(2, 'hi'), {}, `?secret=${wa.secret}`);
    expect(cross.status).toBe(401);
    await h.channels.drain();
    expect(fake.requests).toEqual([]);
  });

  it("checks Telegram's own X-Telegram-Bot-Api-Secret-Token when the channel has one", async () => {
    const { fake, h, bot } = await setup();
    const { secret } = await bot({ credentials: { botToken: BOT_TOKEN, secretToken: 'tg-secret-token_1' } });
    const q = `?secret=${secret}`;
    const missing = await h.deliver('telegram', telegramUpdate(10, 'compost'), {}, q);
    const wrong = await h.deliver(
      'telegram',
      telegramUpdate(11, 'compost'),
      { 'X-Telegram-Bot-Api-Secret-Token': 'nope' },
      q,
    );
    expect([missing.status, wrong.status]).toEqual([401, 401]);
    expect(wrong.json.error.message).toContain('X-Telegram-Bot-Api-Secret-Token');
    const right = await h.deliver(
      'telegram',
      telegramUpdate(12, 'compost'),
      { 'X-Telegram-Bot-Api-Secret-Token': 'tg-secret-token_1' },
      q,
    );
    expect(right.json.data.status).toBe('accepted');
    await until('the condition', () => fake.sent().length === 1);
  });

  it('tells several channels of one provider apart by their secrets', async () => {
    const { fake, h } = await setup();
    const a = await h.create({ provider: 'telegram', name: 'a', credentials: { botToken: BOT_TOKEN } });
    const b = await h.create({ provider: 'telegram', name: 'b', credentials: { botToken: BOT_TOKEN_2 } });
    const rb = await h.deliver('telegram', telegramUpdate(1, 'compost'), {
      'X-Service-Channel-Secret': b.secret,
    });
    expect(rb.json.data.channelId).toBe(b.id);
    await until('the condition', () => fake.sent().length === 1);
    expect(fake.sent()[0]!.path).toBe(`/bot${BOT_TOKEN_2}/sendMessage`);
    // The same update_id on the other channel is a different delivery.
    const ra = await h.deliver('telegram', telegramUpdate(1, 'compost'), {
      'X-Service-Channel-Secret': a.secret,
    });
    expect(ra.json.data).toMatchObject({ channelId: a.id, status: 'accepted' });
    await until('the condition', () => fake.sent().length === 2);
    expect(fake.sent()[1]!.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
  });

  it('answers only senders on the allowlist (user id, chat id or @username)', async () => {
    const { fake, h, bot } = await setup();
    const { secret } = await bot({ settings: { allowedSenders: ['@Ada', '424242'] } });
    const hdr = { 'X-Service-Channel-Secret': secret };
    const stranger = await h.deliver(
      'telegram',
      telegramUpdate(1, 'compost', { id: 666, username: 'eve' }, 666),
      hdr,
    );
    expect(stranger.json.data).toMatchObject({
      status: 'ignored',
      ignored: 1,
      reasons: ['sender not allowed'],
    });
    await h.channels.drain();
    expect(fake.requests).toEqual([]);
    const byName = await h.deliver(
      'telegram',
      telegramUpdate(2, 'compost', { id: 1, username: 'ada' }, 1),
      hdr,
    );
    const byId = await h.deliver(
      'telegram',
      telegramUpdate(3, 'compost', { id: 424242, username: 'x' }, 9),
      hdr,
    );
    expect([byName.json.data.status, byId.json.data.status]).toEqual(['accepted', 'accepted']);
    await until('the condition', () => fake.sent().length === 2);
    expect(
      fake
        .sent()
        .map((s) => s.chatId)
        .sort(),
    ).toEqual(['1', '9']);
  });

  it('acknowledges non-text messages and updates without a message, politely and without a reply', async () => {
    const { fake, h, bot } = await setup();
    const { secret } = await bot();
    const hdr = { 'X-Service-Channel-Secret': secret };
    const photo = telegramUpdate(1, '') as any;
    delete photo.message.text;
    photo.message.photo = [{ file_id: 'x', width: 90, height: 90 }];
    const p = await h.deliver('telegram', photo, hdr);
    expect(p.status).toBe(200);
    expect(p.json.data).toMatchObject({ status: 'ignored', reasons: ['not text (photo)'] });
    const edit = await h.deliver(
      'telegram',
      { update_id: 2, edited_message: telegramUpdate(2, 'x').message },
      hdr,
    );
    expect(edit.json.data).toMatchObject({ status: 'ignored', reasons: ['no message in this update'] });
    await h.channels.drain();
    expect(fake.requests).toEqual([]);
  });

  it.each([
    ['{"update_id": 1', 'INVALID_JSON'],
    ['[1,2]', 'VALIDATION_ERROR'],
    ['{"message": {"text": "hi"}}', 'VALIDATION_ERROR'],
    ['{"update_id": "7"}', 'VALIDATION_ERROR'],
    ['{"update_id": 7, "message": {"text": "hi"}}', 'VALIDATION_ERROR'],
    ['{"update_id": 7, "message": {"chat": {"id": 1}, "text": 5}}', 'VALIDATION_ERROR'],
  ])('answers the malformed body %s with 400 %s, never 500', async (body, code) => {
    const { h, bot } = await setup();
    const { secret } = await bot();
    const r = await h.deliver('telegram', body, { 'X-Service-Channel-Secret': secret });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(code);
  });

  it('sends a reply to the channel API base URL when the channel names one', async () => {
    const other = await startFakeTelegram([BOT_TOKEN]);
    cleanups.push(other.close);
    const { fake, h, bot } = await setup();
    const { secret } = await bot({ settings: { apiBaseUrl: `${other.base}/` } });
    await h.deliver('telegram', telegramUpdate(1, '/start'), { 'X-Service-Channel-Secret': secret });
    await until('the condition', () => other.sent().length === 1);
    expect(other.sent()[0]!.text).toContain('Ask me anything');
    expect(fake.requests).toEqual([]);
  });

  it('rate limits the public webhook per client address: 429 RATE_LIMITED with Retry-After', async () => {
    const { h, bot } = await setup({
      rateLimits: { authPerMinute: 30, failures: 100, failureWindowSeconds: 60, webhookPerMinute: 3 },
    });
    const { secret } = await bot();
    const hdr = { 'X-Service-Channel-Secret': secret };
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++)
      statuses.push((await h.deliver('telegram', telegramUpdate(i, '/start'), hdr)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await h.deliver('telegram', telegramUpdate(9, '/start'), hdr);
    expect(limited.json.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    h.setClient('10.0.0.2');
    expect((await h.deliver('telegram', telegramUpdate(10, '/start'), hdr)).status).toBe(200);
  });

  it('counts wrong secrets as failed authentications, so guessing is cut off', async () => {
    const { h, bot } = await setup({
      rateLimits: { authPerMinute: 30, failures: 3, failureWindowSeconds: 600, webhookPerMinute: 100 },
    });
    const { secret } = await bot();
    for (let i = 0; i < 3; i++) {
      expect((await h.deliver('telegram', telegramUpdate(i, 'x'), {}, `?secret=guess-${i}`)).status).toBe(
        401,
      );
    }
    const blocked = await h.deliver('telegram', telegramUpdate(9, 'x'), {}, '?secret=guess-9');
    expect(blocked.status).toBe(429);
    // Failures only: the right secret still passes from that address (Telegram's senders share addresses).
    const right = await h.deliver('telegram', telegramUpdate(10, 'x'), {
      'X-Service-Channel-Secret': secret,
    });
    expect(right.status).toBe(200);
  });

  it('answers 404 for a provider without a webhook', async () => {
    const { h } = await setup();
    const r = await h.deliver('web', { update_id: 1 }, { 'X-Service-Channel-Secret': 'whatever-secret-123' });
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('NOT_FOUND');
  });
});
