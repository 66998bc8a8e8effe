/**
 * The channels' shapes: a channel connects a message provider (Telegram, WhatsApp, or the client
 * UI as `web`) to the agent. Records hold credentials; views (what the API answers) never do.
 */
import type { ChannelKind, ChatReply } from '../agent/types.ts';

/** The providers a channel can use. */
export type ChannelProvider = ChannelKind;

/** Credentials of a channel as stored (plain text where the server must use them, hashes where it only compares). */
export interface ChannelCredentials {
  /** telegram: the BotFather token, used in Bot API calls. */
  botToken?: string;
  /** telegram: SHA-256 hex of the `secret_token` given to setWebhook (checked against X-Telegram-Bot-Api-Secret-Token). */
  secretTokenHash?: string;
  /** whatsapp: the Cloud API access token. */
  accessToken?: string;
  /** whatsapp: the sending phone number's id (not secret). */
  phoneNumberId?: string;
  /** whatsapp: the Meta app secret, the key of X-Hub-Signature-256. */
  appSecret?: string;
  /** whatsapp: SHA-256 hex of the verify token of the GET handshake. */
  verifyTokenHash?: string;
}

/** How a channel behaves. */
export interface ChannelSettings {
  /** Whether the agent may change notes for this channel's messages. */
  allowWrite: boolean;
  /** Senders allowed to talk to the agent (Telegram user/chat ids or @usernames, WhatsApp numbers); empty: everyone. */
  allowedSenders: string[];
  /** The provider API's base URL for this channel; null: the server's default. */
  apiBaseUrl: string | null;
}

/** A channel as stored in `channels.json`. */
export interface ChannelRecord {
  id: string;
  provider: ChannelProvider;
  name: string;
  enabled: boolean;
  /** SHA-256 hex of the webhook secret; the secret itself is shown once, at creation. */
  webhookSecretHash: string;
  credentials: ChannelCredentials;
  settings: ChannelSettings;
  /** ISO 8601 UTC. */
  createdAt: string;
  updatedAt: string;
}

/** A channel as the API shows it: which secrets are set, never their values. */
export interface ChannelView {
  id: string;
  provider: ChannelProvider;
  name: string;
  enabled: boolean;
  settings: ChannelSettings;
  /** whatsapp only: the phone-number id (not a secret). */
  phoneNumberId?: string;
  /** Which secrets are set, e.g. `{webhookSecret: true, botToken: true, secretToken: false}`. */
  secrets: Record<string, boolean>;
  /** Path of this provider's public webhook (null for `web`). */
  webhookPath: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One turn of a channel conversation as kept. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  content: string;
  /** ISO 8601 UTC. */
  at: string;
}

/** A text message that arrived on a webhook, in the provider's terms. */
export interface InboundMessage {
  /** The provider's id of the delivery, for dropping retries (Telegram update_id, WhatsApp message id). */
  dedupeId: string;
  /** Where the reply goes (Telegram chat id, WhatsApp number). */
  replyTo: string;
  /** Ids the allowlist is checked against (user id, chat id, @username, phone number). */
  senderIds: string[];
  /** The text ('' when it is not a text message). */
  text: string;
  /** Why it is acknowledged and not answered (`not text (photo)`, `from a bot`); null: answer it. */
  skip: string | null;
}

/** What the webhook answers, once the delivery is authenticated. */
export interface WebhookResult {
  /** `accepted`: at least one message will be answered; the others say why nothing happens. */
  status: 'accepted' | 'duplicate' | 'ignored' | 'disabled';
  channelId: string;
  accepted: number;
  duplicate: number;
  ignored: number;
  /** Why messages were ignored (`not text`, `sender not allowed`, ...), when any were. */
  reasons?: string[];
}

/** What the web channel's message route answers: the agent's reply, and the channel's id. */
export interface WebMessageReply extends ChatReply {
  channelId: string;
}

/** Where and how a reply is sent: the channel's credentials and the API base URL to use. */
export interface SendTarget {
  credentials: ChannelCredentials;
  /** The API base URL (the channel's own, or the server's default for its provider). */
  apiBaseUrl: string | null;
}

/**
 * A provider's outbound API (Telegram Bot API sendMessage, WhatsApp Cloud API messages).
 * Implemented by `adapters/channels/*` over an injected fetch.
 */
export interface ChannelSender {
  /** Longest text one message may carry, in characters; longer replies are split. */
  readonly maxChars: number;
  /**
   * Sends one text (at most `maxChars`) to `to`. Rejects with an Error whose message never
   * contains a token or secret when the provider refuses or cannot be reached.
   */
  send(target: SendTarget, to: string, text: string, signal?: AbortSignal): Promise<void>;
}
