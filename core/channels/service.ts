/**
 * Channels: create, list, toggle and remove them (state in `channels.json`), take webhook
 * deliveries, and talk to the agent for `web` channels with the conversation kept per channel.
 */
import type { Agent } from '../agent/agent.ts';
import { type RandomBytes, toBase64Url, toHex } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { createMutex } from '../mutex.ts';
import type { Egress } from '../net/egress.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
import { PROVIDERS, type ProviderInfo } from './providers.ts';
import { channelView, credentialsOf, settingsOf } from './records.ts';
import type { CreateChannelInput } from './schemas.ts';
import { secretHash } from './signature.ts';
import { channelStore } from './store.ts';
import type {
  ChannelRecord,
  ChannelSender,
  ChannelView,
  ConversationTurn,
  WebhookResult,
  WebMessageReply,
} from './types.ts';
import { createWebhookHandler, type HandshakeRequest, type WebhookRequest } from './webhook.ts';

/** Everything `createChannelService` needs. */
export interface ChannelServiceDeps {
  state: StateStore;
  clock: Clock;
  /** Secrets and ids come from here (inject a seeded source in tests). */
  random: RandomBytes;
  agent: Pick<Agent, 'chat'>;
  /** The egress policy: a channel's `settings.apiBaseUrl` must pass it (checked at creation too). */
  egress?: Pick<Egress, 'check'>;
  /** The providers' outbound APIs; a provider without one still takes webhooks but cannot reply. */
  senders: Partial<Record<'telegram' | 'whatsapp', ChannelSender>>;
  logger?: Logger;
  /** Most channels (default 100). */
  maxChannels?: number;
  /** Turns of a web channel's conversation that are kept (default 50). */
  historyTurns?: number;
  /** Webhook deliveries remembered for dropping retries (default 10,000). */
  dedupeCapacity?: number;
}

/** What creating a channel answers: the record, and its webhook secret (shown this once). */
export interface CreatedChannel {
  channel: ChannelView;
  webhookSecret: string;
}

export { channelView } from './records.ts';

/** Builds the channel service; call `load()` before use. */
export function createChannelService(deps: ChannelServiceDeps) {
  const { clock, random, agent, logger } = deps;
  const store = channelStore(deps.state);
  const mutex = createMutex();
  const webhooks = createWebhookHandler(deps);
  const maxChannels = deps.maxChannels ?? 100;
  const historyTurns = deps.historyTurns ?? 50;
  let records: ChannelRecord[] = [];
  const now = () => new Date(clock.now()).toISOString();

  const find = (id: string): ChannelRecord => {
    const r = records.find((x) => x.id === id);
    if (!r) throw new DomainError('CHANNEL_NOT_FOUND', `No channel with id ${id}.`);
    return r;
  };
  /** Writes `next` first, so memory never holds what the disk does not. */
  const commit = async (next: ChannelRecord[]) => {
    await store.save(next);
    records = next;
  };

  return {
    /** Reads `channels.json`; throws ChannelStateError when it is damaged. */
    async load(): Promise<void> {
      records = await store.load();
    },

    /** Every provider, its fields and its webhook. */
    providers(): readonly ProviderInfo[] {
      return PROVIDERS;
    },

    /** Every channel, oldest first. */
    list(): ChannelView[] {
      return records.map(channelView);
    },

    /** One channel; 404 CHANNEL_NOT_FOUND. */
    get(id: string): ChannelView {
      return channelView(find(id));
    },

    /** Creates a channel; its webhook secret (given or generated) is answered this once. */
    create(input: CreateChannelInput): Promise<CreatedChannel> {
      return mutex.run(async () => {
        const base = input.provider === 'web' ? undefined : input.settings?.apiBaseUrl;
        if (base && deps.egress) {
          // The bot token or access token would travel there: refuse what the egress policy refuses.
          await deps.egress.check(base).catch((err: unknown) => {
            const why = err instanceof Error ? err.message.replace(/^Refused to call [^:]+: /, '') : '';
            throw new DomainError('VALIDATION_ERROR', `settings.apiBaseUrl is refused: ${why}`, {
              issues: [{ field: 'settings.apiBaseUrl', message: why }],
            });
          });
        }
        if (records.length >= maxChannels)
          throw new DomainError('CONFLICT', `There are already ${maxChannels} channels; remove one first.`);
        const webhookSecret = input.webhookSecret ?? toBase64Url(random(32));
        const webhookSecretHash = await secretHash(webhookSecret);
        if (records.some((r) => r.provider === input.provider && r.webhookSecretHash === webhookSecretHash))
          throw new DomainError(
            'CONFLICT',
            `webhookSecret is already used by another ${input.provider} channel.`,
          );
        const at = now();
        const record: ChannelRecord = {
          id: `ch_${toHex(random(8))}`,
          provider: input.provider,
          name: input.name,
          enabled: input.enabled ?? true,
          webhookSecretHash,
          credentials: await credentialsOf(input),
          settings: settingsOf(input),
          createdAt: at,
          updatedAt: at,
        };
        await commit([...records, record]);
        logger?.info('channel created', { channelId: record.id, provider: record.provider });
        return { channel: channelView(record), webhookSecret };
      });
    },

    /** Sets `enabled`, or flips it when not given. */
    toggle(id: string, enabled?: boolean): Promise<ChannelView> {
      return mutex.run(async () => {
        const r = find(id);
        const next = { ...r, enabled: enabled ?? !r.enabled, updatedAt: now() };
        await commit(records.map((x) => (x.id === id ? next : x)));
        logger?.info('channel toggled', { channelId: id, enabled: next.enabled });
        return channelView(next);
      });
    },

    /** Removes a channel and its conversation. */
    remove(id: string): Promise<{ deleted: string }> {
      return mutex.run(async () => {
        find(id);
        await commit(records.filter((x) => x.id !== id));
        await store.removeHistory(id);
        webhooks.forget(id);
        logger?.info('channel removed', { channelId: id });
        return { deleted: id };
      });
    },

    /** A public webhook delivery (see `createWebhookHandler`). */
    webhook(provider: string, req: WebhookRequest): Promise<WebhookResult> {
      if (provider !== 'telegram' && provider !== 'whatsapp')
        throw new DomainError(
          'NOT_FOUND',
          `No webhook for provider "${provider}" (telegram and whatsapp have one).`,
        );
      return webhooks.handle(provider, records, req);
    },

    /** WhatsApp's GET verification handshake; answers the challenge. */
    handshake(provider: string, q: HandshakeRequest): Promise<string> {
      if (provider !== 'whatsapp')
        throw new DomainError(
          'NOT_FOUND',
          `Only the whatsapp webhook answers GET (the verification handshake).`,
        );
      return webhooks.handshake(records, q);
    },

    /** A web channel's conversation, oldest first. */
    async history(id: string): Promise<ConversationTurn[]> {
      find(id);
      return store.history(id);
    },

    /** Posts a message to a web channel and answers with the agent's reply; the turn is kept. */
    async message(
      id: string,
      input: { message: string; notePath?: string; signal?: AbortSignal },
    ): Promise<WebMessageReply> {
      const r = find(id);
      if (r.provider !== 'web')
        throw new DomainError(
          'CONFLICT',
          `Channel ${id} is a ${r.provider} channel; only web channels take messages here.`,
        );
      if (!r.enabled)
        throw new DomainError(
          'CONFLICT',
          `Channel ${id} is disabled; enable it with POST /api/v1/channels/${id}/toggle.`,
        );
      const turns = await store.history(id);
      const reply = await agent.chat({
        message: input.message,
        notePath: input.notePath,
        channel: 'web',
        history: turns.map(({ role, content }) => ({ role, content })),
        allowWrite: r.settings.allowWrite,
        signal: input.signal,
      });
      await mutex.run(async () => {
        if (!records.some((x) => x.id === id)) return;
        const latest = await store.history(id);
        latest.push(
          { role: 'user', content: input.message, at: now() },
          { role: 'assistant', content: reply.reply, at: reply.createdAt },
        );
        await store.saveHistory(id, latest.slice(-historyTurns));
      });
      return { ...reply, channelId: id };
    },

    /** Resolves when every webhook reply under way has been sent. */
    drain: () => webhooks.drain(),
    /** Stops: aborts the replies under way and waits for them. */
    close: () => webhooks.close(),
  };
}

export type ChannelService = ReturnType<typeof createChannelService>;
