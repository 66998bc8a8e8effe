import * as v from 'valibot';

/** Longest chat message accepted, in characters. */
export const MAX_MESSAGE_CHARS = 20_000;

/** A message to the agent and the note it is about: the agent's chat and a web channel's messages. */
export const MESSAGE_FIELDS = {
  message: v.pipe(
    v.string('message must be a string.'),
    v.minLength(1, 'message must not be empty.'),
    v.maxLength(MAX_MESSAGE_CHARS, `message must be at most ${MAX_MESSAGE_CHARS} characters.`),
  ),
  notePath: v.optional(v.pipe(v.string('notePath must be a string.'), v.maxLength(1024))),
};

/** Body of `POST /api/v1/agent/chat`. */
export const ChatBody = v.object({
  ...MESSAGE_FIELDS,
  channel: v.optional(
    v.picklist(['telegram', 'whatsapp', 'web'], 'channel must be one of telegram, whatsapp, web.'),
  ),
});
