import type { ChannelSender } from '../../core/channels/types.ts';
import { postJson } from './http-json.ts';

/** Telegram's public Bot API. */
export const TELEGRAM_API_BASE_URL = 'https://api.telegram.org';

/**
 * Telegram's Bot API `sendMessage` (`POST <base>/bot<token>/sendMessage {chat_id, text}`), plain
 * text, 4096 characters a message. `baseUrl` is used when the channel names none.
 */
export function telegramSender(
  opts: { fetch?: typeof globalThis.fetch; baseUrl?: string } = {},
): ChannelSender {
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const base = (opts.baseUrl ?? TELEGRAM_API_BASE_URL).replace(/\/+$/, '');
  return {
    maxChars: 4096,
    async send(target, to, text, signal) {
      const token = target.credentials.botToken;
      if (!token) throw new Error('telegram sendMessage: the channel has no bot token.');
      const url = `${target.apiBaseUrl ?? base}/bot${token}/sendMessage`;
      const json = (await postJson(
        fetchFn,
        'telegram sendMessage',
        url,
        { chat_id: to, text },
        { signal, secrets: [token] },
      )) as {
        ok?: boolean;
      } | null;
      if (json?.ok !== true) throw new Error('telegram sendMessage: the API did not answer ok.');
    },
  };
}
