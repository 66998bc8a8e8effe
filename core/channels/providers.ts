/** What `GET /api/v1/channels/providers` describes: each provider, its fields and its webhook. */
import type { ChannelProvider } from './types.ts';

/** One field a provider needs when a channel is created. */
export interface ProviderField {
  /** Where it goes in the creation body, e.g. `credentials.botToken`. */
  name: string;
  label: string;
  required: boolean;
  /** True for tokens and secrets: accepted at creation, never answered afterwards. */
  secret: boolean;
  description: string;
}

/** A provider as described to clients. */
export interface ProviderInfo {
  id: ChannelProvider;
  name: string;
  description: string;
  fields: ProviderField[];
  /** The public webhook, or null (`web` is posted to by the client UI). */
  webhook: {
    method: 'POST';
    /** Path on the server; the relay form is `<relay>/r/<serverId>` + this path. */
    path: string;
    /** With `{server}` and `{secret}` placeholders. */
    urlPattern: string;
    /** The provider's own check, when one is configured. */
    providerCheck: string;
    /** WhatsApp's GET verification handshake, on the same path. */
    handshake?: string;
  } | null;
  /** Longest single message the provider takes; longer replies are split. */
  maxMessageChars: number | null;
}

/** Path of a provider's public webhook. */
export function webhookPath(provider: ChannelProvider): string | null {
  return provider === 'web' ? null : `/api/v1/channels/webhook/${provider}`;
}

const common = (label: string): ProviderField[] => [
  { name: 'name', label: 'Name', required: true, secret: false, description: `A name for this ${label}.` },
  {
    name: 'webhookSecret',
    label: 'Webhook secret',
    required: false,
    secret: true,
    description:
      'Shared secret of the webhook (16-256 of A-Z a-z 0-9 _ -); generated and shown once when omitted.',
  },
  {
    name: 'settings.allowedSenders',
    label: 'Allowed senders',
    required: false,
    secret: false,
    description: 'Only these senders get answers; empty: everyone.',
  },
  {
    name: 'settings.allowWrite',
    label: 'Allow writes',
    required: false,
    secret: false,
    description: 'Let the agent create and append to notes for these messages.',
  },
  {
    name: 'settings.apiBaseUrl',
    label: 'API base URL',
    required: false,
    secret: false,
    description: "The provider API's address; default: the server's setting.",
  },
];

const pattern = (p: string) => `{server}${p}?secret={secret}`;

/** Every provider, in a stable order. */
export const PROVIDERS: readonly ProviderInfo[] = [
  {
    id: 'telegram',
    name: 'Telegram',
    description: 'A Telegram bot: messages to the bot are answered by the agent.',
    fields: [
      ...common('bot'),
      {
        name: 'credentials.botToken',
        label: 'Bot token',
        required: true,
        secret: true,
        description: 'The token BotFather gave you (123456789:AA...).',
      },
      {
        name: 'credentials.secretToken',
        label: 'Secret token',
        required: false,
        secret: true,
        description: 'The secret_token you give setWebhook; checked against X-Telegram-Bot-Api-Secret-Token.',
      },
    ],
    webhook: {
      method: 'POST',
      path: '/api/v1/channels/webhook/telegram',
      urlPattern: pattern('/api/v1/channels/webhook/telegram'),
      providerCheck: 'X-Telegram-Bot-Api-Secret-Token equals credentials.secretToken (when set).',
    },
    maxMessageChars: 4096,
  },
  {
    id: 'whatsapp',
    name: 'WhatsApp',
    description: 'A WhatsApp Business number through the WhatsApp Cloud API.',
    fields: [
      ...common('number'),
      {
        name: 'credentials.accessToken',
        label: 'Access token',
        required: true,
        secret: true,
        description: 'A Cloud API access token (a system-user token for production).',
      },
      {
        name: 'credentials.phoneNumberId',
        label: 'Phone-number id',
        required: true,
        secret: false,
        description: 'The id of the sending number (WhatsApp > API Setup), not the number itself.',
      },
      {
        name: 'credentials.appSecret',
        label: 'App secret',
        required: false,
        secret: true,
        description: 'The Meta app secret; when set, X-Hub-Signature-256 is required and checked.',
      },
      {
        name: 'credentials.verifyToken',
        label: 'Verify token',
        required: false,
        secret: true,
        description: "The verify token of Meta's webhook handshake; default: the webhook secret.",
      },
    ],
    webhook: {
      method: 'POST',
      path: '/api/v1/channels/webhook/whatsapp',
      urlPattern: pattern('/api/v1/channels/webhook/whatsapp'),
      providerCheck:
        'X-Hub-Signature-256: HMAC-SHA256 of the raw body with credentials.appSecret (when set).',
      handshake:
        'GET with hub.mode=subscribe, hub.verify_token and hub.challenge answers the challenge as text/plain.',
    },
    maxMessageChars: 4096,
  },
  {
    id: 'web',
    name: 'Web',
    description:
      'The client UI: POST /api/v1/channels/:id/messages answers synchronously and keeps the conversation.',
    fields: common('conversation').filter((f) => !/apiBaseUrl|allowedSenders/.test(f.name)),
    webhook: null,
    maxMessageChars: null,
  },
];
