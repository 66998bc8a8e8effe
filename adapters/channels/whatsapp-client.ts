import type { ChannelSender } from '../../core/channels/types.ts';
import { postJson } from './http-json.ts';

/** Meta's Graph API, with the version the Cloud API messages call is written against. */
export const WHATSAPP_API_BASE_URL = 'https://graph.facebook.com/v21.0';

/**
 * The WhatsApp Cloud API messages call (`POST <base>/<phoneNumberId>/messages` with a Bearer
 * access token and a text message), 4096 characters a message. `baseUrl` is used when the
 * channel names none.
 */
export function whatsappSender(
  opts: { fetch?: typeof globalThis.fetch; baseUrl?: string } = {},
): ChannelSender {
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const base = (opts.baseUrl ?? WHATSAPP_API_BASE_URL).replace(/\/+$/, '');
  return {
    maxChars: 4096,
    async send(target, to, text, signal) {
      const { accessToken, phoneNumberId } = target.credentials;
      if (!accessToken || !phoneNumberId)
        throw new Error('whatsapp messages: the channel has no access token or phone-number id.');
      const url = `${target.apiBaseUrl ?? base}/${encodeURIComponent(phoneNumberId)}/messages`;
      const body = {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'text',
        text: { preview_url: false, body: text },
      };
      const json = (await postJson(fetchFn, 'whatsapp messages', url, body, {
        headers: { authorization: `Bearer ${accessToken}` },
        signal,
        secrets: [accessToken],
      })) as { messages?: unknown[] } | null;
      if (!Array.isArray(json?.messages))
        throw new Error('whatsapp messages: the API answer has no messages.');
    },
  };
}
