import type { ChannelFact } from '../security/types.ts';
import type { ChannelService } from './service.ts';

/**
 * What the security audit learns from the channels: which are on, and which verify the webhook's
 * signature (Telegram's secret token, WhatsApp's app secret). A web channel has no public
 * webhook: its messages come through protected routes.
 */
export function channelFacts(channels: Pick<ChannelService, 'list'>): ChannelFact[] {
  return channels.list().map((c) => ({
    id: c.id,
    provider: c.provider,
    enabled: c.enabled,
    signatureCheck:
      c.provider === 'web' ||
      (c.provider === 'telegram' ? c.secrets.secretToken : c.secrets.appSecret) === true,
  }));
}
