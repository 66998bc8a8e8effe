/**
 * Reads the providers' webhook bodies (Telegram updates, WhatsApp Cloud API notifications) into
 * inbound messages. Bodies that are not the provider's shape are 400 with the field named.
 */
import * as v from 'valibot';
import type { InboundMessage } from './types.ts';

const id = v.union([v.number(), v.string()], 'must be a number or a string.');

const TelegramMessage = v.looseObject({
  message_id: v.optional(v.number()),
  from: v.optional(v.looseObject({ id, is_bot: v.optional(v.boolean()), username: v.optional(v.string()) })),
  chat: v.looseObject({ id }, 'message.chat must be an object with an id.'),
  text: v.optional(v.string('message.text must be a string.')),
});

/** A Telegram Update (only what the bot uses is checked). */
export const TelegramUpdate = v.looseObject(
  {
    update_id: v.pipe(
      v.number('update_id must be a number.'),
      v.integer('update_id must be an integer.'),
      v.minValue(0, 'update_id must not be negative.'),
    ),
    message: v.optional(TelegramMessage),
  },
  'The body must be a Telegram update (an object with update_id).',
);

const WhatsAppMessage = v.looseObject({
  from: v.string('from must be a string.'),
  id: v.pipe(v.string('id must be a string.'), v.minLength(1)),
  type: v.optional(v.string()),
  text: v.optional(v.looseObject({ body: v.string('text.body must be a string.') })),
});

/** A WhatsApp Cloud API webhook notification (only what is used is checked). */
export const WhatsAppNotification = v.looseObject(
  {
    object: v.optional(v.string('object must be a string.')),
    entry: v.array(
      v.looseObject({
        changes: v.optional(
          v.array(
            v.looseObject({
              field: v.optional(v.string()),
              value: v.optional(
                v.looseObject({
                  metadata: v.optional(v.looseObject({ phone_number_id: v.optional(v.string()) })),
                  messages: v.optional(v.array(WhatsAppMessage, 'messages must be an array.')),
                }),
              ),
            }),
            'changes must be an array.',
          ),
        ),
      }),
      'entry must be an array.',
    ),
  },
  'The body must be a WhatsApp notification (an object with entry).',
);

const TELEGRAM_KINDS = ['photo', 'sticker', 'voice', 'video', 'video_note', 'document', 'audio', 'animation'];

/** The message of a Telegram update; an update that carries none (edits, callbacks, ...) gives []. */
export function telegramMessages(update: v.InferOutput<typeof TelegramUpdate>): InboundMessage[] {
  const m = update.message;
  if (!m) return [];
  const from = m.from;
  const senderIds = [String(m.chat.id)];
  if (from) {
    senderIds.push(String(from.id));
    if (from.username) senderIds.push(`@${from.username}`);
  }
  const kind = TELEGRAM_KINDS.find((k) => k in m) ?? 'other';
  const text = m.text?.trim() ?? '';
  return [
    {
      dedupeId: String(update.update_id),
      replyTo: String(m.chat.id),
      senderIds,
      text,
      skip: from?.is_bot ? 'from a bot' : text === '' ? `not text (${kind})` : null,
    },
  ];
}

/**
 * The messages of a WhatsApp notification for the number `phoneNumberId`; delivery statuses
 * carry no messages, and messages to another number are skipped.
 */
export function whatsappMessages(
  body: v.InferOutput<typeof WhatsAppNotification>,
  phoneNumberId: string | undefined,
): InboundMessage[] {
  const out: InboundMessage[] = [];
  for (const entry of body.entry) {
    for (const change of entry.changes ?? []) {
      const value = change.value;
      const to = value?.metadata?.phone_number_id;
      for (const m of value?.messages ?? []) {
        const text = m.type === 'text' || m.type === undefined ? (m.text?.body.trim() ?? '') : '';
        out.push({
          dedupeId: m.id,
          replyTo: m.from,
          senderIds: [m.from],
          text,
          skip:
            body.object !== undefined && body.object !== 'whatsapp_business_account'
              ? `not a WhatsApp Business notification (${body.object})`
              : to !== undefined && phoneNumberId !== undefined && to !== phoneNumberId
                ? 'for another phone number'
                : text === ''
                  ? `not text (${m.type ?? 'unknown'})`
                  : null,
        });
      }
    }
  }
  return out;
}
