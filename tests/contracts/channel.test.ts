import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import { telegramSender, whatsappSender } from '../../adapters/channels/index.ts';
import { BOT_TOKEN, channelHarness } from '../helpers/channels-harness.ts';
import {
  startFakeTelegram,
  startFakeWhatsApp,
  telegramUpdate,
  whatsappNotification,
} from '../helpers/fake-channel-providers.ts';
import { CHANNEL_CASES as C, runChannelContract } from './channel.contract.ts';

runChannelContract('telegram (Bot API on loopback)', {
  async create({ provider }) {
    const fake = await startFakeTelegram([BOT_TOKEN]);
    const h = await channelHarness({ telegramBase: fake.base, provider });
    let update = 0;
    return {
      h,
      createChannel: (extra = {}) =>
        h.create({ provider: 'telegram', name: 'bot', credentials: { botToken: BOT_TOKEN }, ...extra }),
      message: (ch, text, from = '1001') =>
        h.deliver(
          'telegram',
          telegramUpdate(++update, text, { id: Number(from), username: `u${from}` }, Number(from)),
          {
            'X-Service-Channel-Secret': ch.secret,
          },
        ),
      disabledAnswer: { status: 200, json: { data: { status: 'disabled', accepted: 0 } } },
      senders: ['1001', '2002'],
      replies: () => fake.sent().map((s) => ({ to: s.chatId, text: s.text })),
      settle: () => h.channels.drain(),
      api: {
        port: telegramSender({ baseUrl: fake.base }),
        target: { credentials: { botToken: BOT_TOKEN }, apiBaseUrl: null },
        to: '1001',
        refused: {
          target: { credentials: { botToken: '555:not-a-bot-token' }, apiBaseUrl: null },
          secret: '555:not-a-bot-token',
        },
        sent: () => fake.sent().map((s) => ({ to: s.chatId, text: s.text })),
      },
      async cleanup() {
        await h.channels.close();
        await fake.close();
      },
    };
  },
});

const PHONE_ID = '106540352242922';
const TOKEN = 'EAAGm0PX4ZCpsBA-access-token-1';
const APP_SECRET = 'meta-app-secret-4f9a';

runChannelContract('whatsapp (Cloud API on loopback)', {
  async create({ provider }) {
    const fake = await startFakeWhatsApp([{ phoneNumberId: PHONE_ID, accessToken: TOKEN }]);
    const h = await channelHarness({ whatsappBase: fake.url, provider });
    let n = 0;
    const credentials = { accessToken: TOKEN, phoneNumberId: PHONE_ID };
    return {
      h,
      createChannel: (extra = {}) =>
        h.create({
          provider: 'whatsapp',
          name: 'number',
          credentials: { ...credentials, appSecret: APP_SECRET },
          ...extra,
        }),
      message(ch, text, from = '4915112345678') {
        const raw = JSON.stringify(whatsappNotification(PHONE_ID, { id: `wamid.K${++n}`, from, text }));
        const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
        return h.deliver('whatsapp', raw, {
          'X-Hub-Signature-256': signature,
          'X-Service-Channel-Secret': ch.secret,
        });
      },
      disabledAnswer: { status: 200, json: { data: { status: 'disabled', accepted: 0 } } },
      senders: ['4915112345678', '15550001111'],
      replies: () => fake.sent().map(({ to, text }) => ({ to, text })),
      settle: () => h.channels.drain(),
      api: {
        port: whatsappSender({ baseUrl: fake.url }),
        target: { credentials, apiBaseUrl: null },
        to: '4915112345678',
        refused: {
          target: { credentials: { ...credentials, accessToken: 'EAA-revoked-token' }, apiBaseUrl: null },
          secret: 'EAA-revoked-token',
        },
        sent: () => fake.sent().map(({ to, text }) => ({ to, text })),
      },
      async cleanup() {
        await h.channels.close();
        await fake.close();
      },
    };
  },
});

runChannelContract('web (the client UI, answered in the HTTP response)', {
  async create({ provider }) {
    const h = await channelHarness({ provider });
    const replies: { to: string; text: string }[] = [];
    return {
      h,
      createChannel: (extra = {}) => h.create({ provider: 'web', name: 'Browser', ...extra }),
      async message(ch, text, from = 'client') {
        const r = await h.call('POST', `/api/v1/channels/${ch.id}/messages`, { message: text });
        if (r.status === 200) replies.push({ to: from, text: r.json.data.reply });
        return r;
      },
      disabledAnswer: {
        status: 409,
        json: { success: false, error: { code: 'CONFLICT', message: expect.stringContaining('disabled') } },
      },
      senders: ['client', 'client'],
      replies: () => replies,
      settle: async () => {},
      async cleanup() {
        await h.channels.close();
      },
    };
  },
  skip: [
    {
      reason: 'web has one sender, the signed-in client: its conversation is per channel',
      tests: [C.perSender],
    },
    {
      reason: 'web answers the whole reply in the HTTP response: it has no message limit',
      tests: [C.split],
    },
    {
      reason: 'web is reached only with an API key: allowedSenders is not a web setting',
      tests: [C.allowlist],
    },
    {
      reason: 'web has no outbound API (no ChannelSender): the reply is the HTTP answer',
      tests: [C.send, C.maxChars, C.refused, C.unreachable, C.noCredentials],
    },
  ],
});
