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

/**
 * The channels as stored: the records (written to `channels.json` before memory holds them),
 * one mutex for every change, and the service's settings.
 */
class Channels {
  readonly store: ReturnType<typeof channelStore>;
  readonly mutex = createMutex();
  readonly maxChannels: number;
  readonly historyTurns: number;
  records: ChannelRecord[] = [];

  constructor(readonly deps: ChannelServiceDeps) {
    this.store = channelStore(deps.state);
    this.maxChannels = deps.maxChannels ?? 100;
    this.historyTurns = deps.historyTurns ?? 50;
  }

  now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  find(id: string): ChannelRecord {
    const r = this.records.find((x) => x.id === id);
    if (!r) throw new DomainError('CHANNEL_NOT_FOUND', `No channel with id ${id}.`);
    return r;
  }

  /** Writes `next` first, so memory never holds what the disk does not. */
  async commit(next: ChannelRecord[]): Promise<void> {
    await this.store.save(next);
    this.records = next;
  }
}

/** Refuses a channel's `settings.apiBaseUrl` that the egress policy refuses (its token would travel there). */
async function checkApiBase(deps: ChannelServiceDeps, input: CreateChannelInput): Promise<void> {
  const base = input.provider === 'web' ? undefined : input.settings?.apiBaseUrl;
  if (!base || !deps.egress) return;
  await deps.egress.check(base).catch((err: unknown) => {
    const why = err instanceof Error ? err.message.replace(/^Refused to call [^:]+: /, '') : '';
    throw new DomainError('VALIDATION_ERROR', `settings.apiBaseUrl is refused: ${why}`, {
      issues: [{ field: 'settings.apiBaseUrl', message: why }],
    });
  });
}

/** Creates a channel; its webhook secret (given or generated) is answered this once. */
function createChannel(ch: Channels, input: CreateChannelInput): Promise<CreatedChannel> {
  const { random, logger } = ch.deps;
  return ch.mutex.run(async () => {
    await checkApiBase(ch.deps, input);
    if (ch.records.length >= ch.maxChannels)
      throw new DomainError('CONFLICT', `There are already ${ch.maxChannels} channels; remove one first.`);
    const webhookSecret = input.webhookSecret ?? toBase64Url(random(32));
    const webhookSecretHash = await secretHash(webhookSecret);
    if (ch.records.some((r) => r.provider === input.provider && r.webhookSecretHash === webhookSecretHash))
      throw new DomainError(
        'CONFLICT',
        `webhookSecret is already used by another ${input.provider} channel.`,
      );
    const at = ch.now();
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
    await ch.commit([...ch.records, record]);
    logger?.info('channel created', { channelId: record.id, provider: record.provider });
    return { channel: channelView(record), webhookSecret };
  });
}

/** Posts a message to a web channel and answers with the agent's reply; the turn is kept. */
async function webMessage(
  ch: Channels,
  id: string,
  input: { message: string; notePath?: string; signal?: AbortSignal },
): Promise<WebMessageReply> {
  const r = ch.find(id);
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
  const turns = await ch.store.history(id);
  const reply = await ch.deps.agent.chat({
    message: input.message,
    notePath: input.notePath,
    channel: 'web',
    history: turns.map(({ role, content }) => ({ role, content })),
    allowWrite: r.settings.allowWrite,
    signal: input.signal,
  });
  await ch.mutex.run(async () => {
    if (!ch.records.some((x) => x.id === id)) return;
    const latest = await ch.store.history(id);
    latest.push(
      { role: 'user', content: input.message, at: ch.now() },
      { role: 'assistant', content: reply.reply, at: reply.createdAt },
    );
    await ch.store.saveHistory(id, latest.slice(-ch.historyTurns));
  });
  return { ...reply, channelId: id };
}

/** Builds the channel service; call `load()` before use. */
export function createChannelService(deps: ChannelServiceDeps) {
  const { logger } = deps;
  const ch = new Channels(deps);
  const { store, mutex } = ch;
  const webhooks = createWebhookHandler(deps);
  const find = (id: string) => ch.find(id);

  return {
    /** Reads `channels.json`; throws ChannelStateError when it is damaged. */
    async load(): Promise<void> {
      ch.records = await store.load();
    },

    /** Every provider, its fields and its webhook. */
    providers(): readonly ProviderInfo[] {
      return PROVIDERS;
    },

    /** Every channel, oldest first. */
    list(): ChannelView[] {
      return ch.records.map(channelView);
    },

    /** One channel; 404 CHANNEL_NOT_FOUND. */
    get(id: string): ChannelView {
      return channelView(find(id));
    },

    /** Creates a channel; its webhook secret (given or generated) is answered this once. */
    create: (input: CreateChannelInput): Promise<CreatedChannel> => createChannel(ch, input),

    /** Sets `enabled`, or flips it when not given. */
    toggle(id: string, enabled?: boolean): Promise<ChannelView> {
      return mutex.run(async () => {
        const r = find(id);
        const next = { ...r, enabled: enabled ?? !r.enabled, updatedAt: ch.now() };
        await ch.commit(ch.records.map((x) => (x.id === id ? next : x)));
        logger?.info('channel toggled', { channelId: id, enabled: next.enabled });
        return channelView(next);
      });
    },

    /** Removes a channel and its conversation. */
    remove(id: string): Promise<{ deleted: string }> {
      return mutex.run(async () => {
        find(id);
        await ch.commit(ch.records.filter((x) => x.id !== id));
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
      return webhooks.handle(provider, ch.records, req);
    },

    /** WhatsApp's GET verification handshake; answers the challenge. */
    handshake(provider: string, q: HandshakeRequest): Promise<string> {
      if (provider !== 'whatsapp')
        throw new DomainError(
          'NOT_FOUND',
          `Only the whatsapp webhook answers GET (the verification handshake).`,
        );
      return webhooks.handshake(ch.records, q);
    },

    /** A web channel's conversation, oldest first. */
    async history(id: string): Promise<ConversationTurn[]> {
      find(id);
      return store.history(id);
    },

    /** Posts a message to a web channel and answers with the agent's reply; the turn is kept. */
    message: (id: string, input: { message: string; notePath?: string; signal?: AbortSignal }) =>
      webMessage(ch, id, input),

    /** Resolves when every webhook reply under way has been sent. */
    drain: () => webhooks.drain(),
    /** Stops: aborts the replies under way and waits for them. */
    close: () => webhooks.close(),
  };
}

export type ChannelService = ReturnType<typeof createChannelService>;
