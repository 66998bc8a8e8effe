/** Channel records: built from a creation body, and shown without their secrets. */
import { webhookPath } from './providers.ts';
import type { CreateChannelInput } from './schemas.ts';
import { secretHash } from './signature.ts';
import type { ChannelCredentials, ChannelRecord, ChannelSettings, ChannelView } from './types.ts';

/** The record as the API shows it. */
export function channelView(r: ChannelRecord): ChannelView {
  const c = r.credentials;
  const secrets: Record<string, boolean> = { webhookSecret: true };
  if (r.provider === 'telegram')
    Object.assign(secrets, { botToken: !!c.botToken, secretToken: !!c.secretTokenHash });
  if (r.provider === 'whatsapp')
    Object.assign(secrets, {
      accessToken: !!c.accessToken,
      appSecret: !!c.appSecret,
      verifyToken: !!c.verifyTokenHash,
    });
  return {
    id: r.id,
    provider: r.provider,
    name: r.name,
    enabled: r.enabled,
    settings: { ...r.settings, allowedSenders: [...r.settings.allowedSenders] },
    ...(r.provider === 'whatsapp' ? { phoneNumberId: c.phoneNumberId } : {}),
    secrets,
    webhookPath: webhookPath(r.provider),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** The credentials to store: tokens the server must use in plain text, secrets it only compares as hashes. */
export async function credentialsOf(input: CreateChannelInput): Promise<ChannelCredentials> {
  if (input.provider === 'telegram') {
    const { botToken, secretToken } = input.credentials;
    return { botToken, ...(secretToken ? { secretTokenHash: await secretHash(secretToken) } : {}) };
  }
  if (input.provider === 'whatsapp') {
    const { accessToken, phoneNumberId, appSecret, verifyToken } = input.credentials;
    return {
      accessToken,
      phoneNumberId,
      ...(appSecret ? { appSecret } : {}),
      ...(verifyToken ? { verifyTokenHash: await secretHash(verifyToken) } : {}),
    };
  }
  return {};
}

/** The settings of a new channel: public channels may not write unless asked; web has no senders or API. */
export function settingsOf(input: CreateChannelInput): ChannelSettings {
  const web = input.provider === 'web';
  return {
    allowWrite: input.settings?.allowWrite ?? web,
    allowedSenders: web ? [] : (input.settings?.allowedSenders ?? []),
    apiBaseUrl: web ? null : (input.settings?.apiBaseUrl?.replace(/\/+$/, '') ?? null),
  };
}
