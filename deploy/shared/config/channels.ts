import type { Env } from './read.ts';
import { readUrl } from './variables.ts';

/** The channels' provider API addresses (README "Channels"). */
export interface ChannelsConfig {
  /** TELEGRAM_API_BASE_URL: the Bot API (default https://api.telegram.org). */
  telegramApiBaseUrl: string;
  /** WHATSAPP_API_BASE_URL: the Graph API with its version (default https://graph.facebook.com/v21.0). */
  whatsappApiBaseUrl: string;
}

/** Reads and validates the channel variables; throws ConfigError naming the variable. */
export function loadChannelsConfig(env: Env): ChannelsConfig {
  return {
    telegramApiBaseUrl: readUrl(env, 'TELEGRAM_API_BASE_URL'),
    whatsappApiBaseUrl: readUrl(env, 'WHATSAPP_API_BASE_URL'),
  };
}
