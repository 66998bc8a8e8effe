/**
 * Who a webhook delivery is for and whether to believe it: the channel's shared secret (constant
 * time), the provider's own check (Telegram's secret-token header, WhatsApp's body signature),
 * WhatsApp's GET verification handshake, and the sender allowlist.
 */
import { constantTimeEqual } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { hubSignatureValid, secretHash, secretMatches } from './signature.ts';
import type { ChannelRecord } from './types.ts';

/** A webhook delivery as the HTTP adapter read it. */
export interface WebhookRequest {
  /** X-Service-Channel-Secret, else the `secret` query parameter. */
  secret?: string;
  /** X-Telegram-Bot-Api-Secret-Token. */
  telegramSecretToken?: string;
  /** X-Hub-Signature-256. */
  hubSignature?: string;
  /** The raw body bytes (signatures are over these). */
  body: Uint8Array;
}

/** WhatsApp's GET verification handshake, as the query carried it. */
export interface HandshakeRequest {
  secret?: string;
  mode?: string;
  verifyToken?: string;
  challenge?: string;
}

/** The channel of `provider` whose webhook secret is `secret`; 401 UNAUTHORIZED otherwise. */
export async function identifyChannel(
  provider: string,
  channels: readonly ChannelRecord[],
  secret: string | undefined,
): Promise<ChannelRecord> {
  if (!secret) {
    throw new DomainError(
      'UNAUTHORIZED',
      "Send the channel's webhook secret in X-Service-Channel-Secret or the secret query parameter.",
    );
  }
  const hash = await secretHash(secret);
  let found: ChannelRecord | undefined;
  // Every channel is compared, so the time taken does not tell which one (or whether one) matched.
  for (const ch of channels) {
    if (ch.provider === provider && constantTimeEqual(hash, ch.webhookSecretHash)) found = ch;
  }
  if (!found) throw new DomainError('UNAUTHORIZED', `The webhook secret matches no ${provider} channel.`);
  return found;
}

/** The provider's own check, when the channel configures one; 401 UNAUTHORIZED when it fails. */
export async function checkProviderAuth(ch: ChannelRecord, req: WebhookRequest): Promise<void> {
  if (ch.provider === 'telegram' && ch.credentials.secretTokenHash) {
    if (!(await secretMatches(req.telegramSecretToken, ch.credentials.secretTokenHash)))
      throw new DomainError('UNAUTHORIZED', 'X-Telegram-Bot-Api-Secret-Token is missing or wrong.');
  }
  if (ch.provider === 'whatsapp' && ch.credentials.appSecret) {
    if (!(await hubSignatureValid(ch.credentials.appSecret, req.body, req.hubSignature)))
      throw new DomainError('UNAUTHORIZED', 'X-Hub-Signature-256 is missing or does not match the body.');
  }
}

/**
 * WhatsApp's GET handshake: answers the challenge when `hub.verify_token` is the verify token of
 * the channel the secret names (or, without a secret, of any WhatsApp channel). 400 / 401 / 403.
 */
export async function verifyHandshake(
  channels: readonly ChannelRecord[],
  q: HandshakeRequest,
): Promise<string> {
  if (q.mode !== 'subscribe')
    throw new DomainError('VALIDATION_ERROR', 'hub.mode must be subscribe.', { field: 'hub.mode' });
  if (!q.challenge || !/^[A-Za-z0-9._-]{1,256}$/.test(q.challenge))
    throw new DomainError('VALIDATION_ERROR', 'hub.challenge must be 1-256 letters or digits.', {
      field: 'hub.challenge',
    });
  if (!q.verifyToken)
    throw new DomainError('VALIDATION_ERROR', 'hub.verify_token is required.', { field: 'hub.verify_token' });
  const candidates = q.secret
    ? [await identifyChannel('whatsapp', channels, q.secret)]
    : channels.filter((ch) => ch.provider === 'whatsapp');
  let ok = false;
  for (const ch of candidates) {
    if (await secretMatches(q.verifyToken, ch.credentials.verifyTokenHash ?? ch.webhookSecretHash)) ok = true;
  }
  if (!ok)
    throw new DomainError('FORBIDDEN', 'hub.verify_token does not match the verify token of the channel.');
  return q.challenge;
}

/** True when one of `ids` is in `allowed` (empty: everyone). WhatsApp numbers compare by digits. */
export function senderAllowed(provider: string, allowed: readonly string[], ids: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const norm = (s: string) =>
    provider === 'whatsapp' ? s.replace(/\D/g, '') : s.startsWith('@') ? s.toLowerCase() : s.trim();
  const set = new Set(allowed.map(norm).filter((s) => s !== ''));
  return ids.some((id) => set.has(norm(id)));
}
