/**
 * The public webhook: find the channel by its shared secret, run the provider's own check,
 * drop retries, and answer each accepted message through the agent and the provider's API.
 * The HTTP answer does not wait for the agent: replies are sent in the background, one at a
 * time per conversation (`drain()` waits for them).
 */
import type { Agent } from '../agent/agent.ts';
import { DomainError, isDomainError } from '../errors.ts';
import type { Logger } from '../ports.ts';
import { parseBody } from '../schemas.ts';
import { createConversations } from './conversations.ts';
import { createSeenSet } from './dedupe.ts';
import { TelegramUpdate, telegramMessages, WhatsAppNotification, whatsappMessages } from './inbound.ts';
import { splitReply } from './split.ts';
import type { ChannelRecord, ChannelSender, InboundMessage, WebhookResult } from './types.ts';
import {
  checkProviderAuth,
  type HandshakeRequest,
  identifyChannel,
  senderAllowed,
  verifyHandshake,
  type WebhookRequest,
} from './verify.ts';

export type { HandshakeRequest, WebhookRequest } from './verify.ts';

/** Everything the webhook handler needs. */
export interface WebhookDeps {
  agent: Pick<Agent, 'chat'>;
  senders: Partial<Record<'telegram' | 'whatsapp', ChannelSender>>;
  logger?: Logger;
  /** Deliveries remembered for dropping retries (default 10,000). */
  dedupeCapacity?: number;
}

const GREETING = "Hi! I'm the assistant of your Quire notes. Ask me anything about them.";

/** What the sender is told when the agent could not answer. */
function apology(err: unknown): string {
  if (isDomainError(err) && err.code === 'AGENT_DISABLED') return 'The assistant is switched off right now.';
  if (isDomainError(err) && err.code === 'VALIDATION_ERROR') return 'Sorry, that message is too long for me.';
  return 'Sorry, I could not answer that just now. Please try again later.';
}

/** Builds the webhook handler. */
export function createWebhookHandler(deps: WebhookDeps) {
  const { agent, senders, logger } = deps;
  const seen = createSeenSet(deps.dedupeCapacity ?? 10_000);
  const conversations = createConversations({ maxTurns: 20, maxConversations: 1_000 });
  const inflight = new Set<Promise<void>>();
  const stop = new AbortController();
  const drain = async () => {
    while (inflight.size) await Promise.all([...inflight]);
  };

  const answer = async (ch: ChannelRecord, m: InboundMessage, key: string) => {
    let text: string;
    if (ch.provider === 'telegram' && /^\/start(@\w+)?$/.test(m.text)) text = GREETING;
    else {
      try {
        const r = await agent.chat({
          message: m.text,
          channel: ch.provider,
          history: conversations.history(key),
          allowWrite: ch.settings.allowWrite,
          signal: stop.signal,
        });
        text = r.reply;
        conversations.record(key, m.text, r.reply);
      } catch (err) {
        if (stop.signal.aborted) return;
        logger?.warn('channel message not answered', {
          channelId: ch.id,
          provider: ch.provider,
          code: isDomainError(err) ? err.code : 'INTERNAL_ERROR',
        });
        text = apology(err);
      }
    }
    const sender = senders[ch.provider as 'telegram' | 'whatsapp'];
    if (!sender) return;
    const parts = splitReply(text, sender.maxChars);
    for (const part of parts) {
      await sender.send(
        { credentials: ch.credentials, apiBaseUrl: ch.settings.apiBaseUrl },
        m.replyTo,
        part,
        stop.signal,
      );
    }
    logger?.info('channel reply sent', { channelId: ch.id, provider: ch.provider, parts: parts.length });
  };

  const schedule = (ch: ChannelRecord, m: InboundMessage) => {
    const key = `${ch.id}:${m.replyTo}`;
    const p = conversations
      .serial(key, () => answer(ch, m, key))
      .catch((err) => {
        logger?.warn('channel reply failed', {
          channelId: ch.id,
          provider: ch.provider,
          error: err instanceof Error ? err.message : String(err),
        });
      });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  return {
    /** Authenticates and handles one POST delivery; 401 / 400 as DomainErrors. */
    async handle(
      provider: 'telegram' | 'whatsapp',
      channels: readonly ChannelRecord[],
      req: WebhookRequest,
    ): Promise<WebhookResult> {
      const ch = await identifyChannel(provider, channels, req.secret);
      await checkProviderAuth(ch, req);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(req.body);
      } catch {
        throw new DomainError('INVALID_JSON', 'The request body is not UTF-8 JSON.');
      }
      const messages =
        provider === 'telegram'
          ? telegramMessages(parseBody(TelegramUpdate, text))
          : whatsappMessages(parseBody(WhatsAppNotification, text), ch.credentials.phoneNumberId);
      const result: WebhookResult = {
        status: 'ignored',
        channelId: ch.id,
        accepted: 0,
        duplicate: 0,
        ignored: 0,
      };
      if (!ch.enabled) return { ...result, status: 'disabled' };
      const reasons = new Set<string>();
      for (const m of messages) {
        if (!seen.firstTime(`${ch.id}:${m.dedupeId}`)) result.duplicate++;
        else if (m.skip) {
          result.ignored++;
          reasons.add(m.skip);
        } else if (!senderAllowed(provider, ch.settings.allowedSenders, m.senderIds)) {
          result.ignored++;
          reasons.add('sender not allowed');
        } else {
          result.accepted++;
          schedule(ch, m);
        }
      }
      if (messages.length === 0) reasons.add('no message in this update');
      if (reasons.size) result.reasons = [...reasons];
      result.status = result.accepted ? 'accepted' : result.duplicate ? 'duplicate' : 'ignored';
      logger?.info('channel webhook', {
        channelId: ch.id,
        provider,
        status: result.status,
        accepted: result.accepted,
        duplicate: result.duplicate,
        ignored: result.ignored,
      });
      return result;
    },

    /** WhatsApp's GET handshake (see `verifyHandshake`). */
    handshake: (channels: readonly ChannelRecord[], q: HandshakeRequest) => verifyHandshake(channels, q),

    /** Forgets the conversations of a removed channel. */
    forget(channelId: string): void {
      conversations.forget(`${channelId}:`);
    },

    /** Resolves when every reply under way has been sent (or failed). */
    drain,

    /** Aborts the replies under way (shutdown) and waits for them to stop. */
    async close(): Promise<void> {
      stop.abort();
      await drain();
    },
  };
}

export type WebhookHandler = ReturnType<typeof createWebhookHandler>;
