/**
 * Channel state through the StateStore port: every record in `channels.json`, and each web
 * channel's conversation in `channel-history-<id>.json`. Both are replaced atomically by the store.
 */
import * as v from 'valibot';
import { parseJsonOr } from '../json.ts';
import type { StateStore } from '../ports.ts';
import type { ChannelRecord, ConversationTurn } from './types.ts';

/** The key of the channel records. */
export const CHANNELS_KEY = 'channels.json';

const hash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));

const RecordSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^ch_[0-9a-f]{16}$/)),
  provider: v.picklist(['telegram', 'whatsapp', 'web']),
  name: v.string(),
  enabled: v.boolean(),
  webhookSecretHash: hash,
  credentials: v.object({
    botToken: v.optional(v.string()),
    secretTokenHash: v.optional(hash),
    accessToken: v.optional(v.string()),
    phoneNumberId: v.optional(v.string()),
    appSecret: v.optional(v.string()),
    verifyTokenHash: v.optional(hash),
  }),
  settings: v.object({
    allowWrite: v.boolean(),
    allowedSenders: v.array(v.string()),
    apiBaseUrl: v.nullable(v.string()),
  }),
  createdAt: v.string(),
  updatedAt: v.string(),
});

const StateSchema = v.object({ v: v.literal(1), channels: v.array(RecordSchema) });

const HistorySchema = v.object({
  v: v.literal(1),
  turns: v.array(v.object({ role: v.picklist(['user', 'assistant']), content: v.string(), at: v.string() })),
});

/** The stored channels cannot be used; the message is one line an operator can act on. */
export class ChannelStateError extends Error {
  override name = 'ChannelStateError';
}

const historyKey = (id: string) => `channel-history-${id}.json`;

/** Reads and writes channel state; throws ChannelStateError when `channels.json` is damaged. */
export function channelStore(state: StateStore) {
  return {
    /** Every stored channel ([] when there is no file yet). */
    async load(): Promise<ChannelRecord[]> {
      const text = await state.get(CHANNELS_KEY);
      if (text === null) return [];
      const data = parseJsonOr(
        text,
        () =>
          new ChannelStateError(
            `${CHANNELS_KEY} in DATA_DIR is not valid JSON; restore it from a backup or delete it (every channel is then gone).`,
          ),
      );
      const r = v.safeParse(StateSchema, data);
      if (!r.success) {
        const field = v.getDotPath(r.issues[0]) ?? '(root)';
        throw new ChannelStateError(
          `${CHANNELS_KEY} in DATA_DIR is damaged (field ${field}); restore it from a backup or delete it.`,
        );
      }
      return r.output.channels;
    },
    /** Replaces every stored channel at once. */
    async save(records: readonly ChannelRecord[]): Promise<void> {
      await state.put(CHANNELS_KEY, `${JSON.stringify({ v: 1, channels: records }, null, 2)}\n`);
    },
    /** A web channel's conversation, oldest first; [] when none (or unreadable: it is only history). */
    async history(id: string): Promise<ConversationTurn[]> {
      const text = await state.get(historyKey(id));
      if (text === null) return [];
      try {
        const r = v.safeParse(HistorySchema, JSON.parse(text));
        return r.success ? r.output.turns : [];
      } catch {
        return [];
      }
    },
    /** Replaces a web channel's conversation. */
    async saveHistory(id: string, turns: readonly ConversationTurn[]): Promise<void> {
      await state.put(historyKey(id), JSON.stringify({ v: 1, turns }));
    },
    /** Forgets a channel's conversation. */
    async removeHistory(id: string): Promise<void> {
      await state.remove(historyKey(id));
    },
  };
}

export type ChannelStore = ReturnType<typeof channelStore>;
