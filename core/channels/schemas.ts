/** Request bodies of the channel routes (valibot; the HTTP adapter runs them and answers 400). */
import * as v from 'valibot';
import { MESSAGE_FIELDS } from '../agent/schemas.ts';

/** Message of an object schema: names a missing field instead of valibot's generic text. */
const objectMessage =
  (what: string) =>
  (issue: { expected: string | null; received: string }): string =>
    issue.received === 'undefined' && issue.expected?.startsWith('"')
      ? `${issue.expected.slice(1, -1)} is required.`
      : `${what} must be an object.`;

const secretish = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(`${name} must be a string.`),
    v.regex(/^[A-Za-z0-9_-]+$/, `${name} may only contain letters, digits, _ and -.`),
    v.minLength(min, `${name} must be at least ${min} characters.`),
    v.maxLength(max, `${name} must be at most ${max} characters.`),
  );

const token = (name: string) =>
  v.pipe(
    v.string(`${name} must be a string.`),
    v.trim(),
    v.minLength(1, `${name} must not be empty.`),
    v.maxLength(2048, `${name} must be at most 2048 characters.`),
    v.regex(/^[\x21-\x7e]+$/, `${name} must not contain spaces or control characters.`),
  );

const name = v.pipe(
  v.string('name must be a string.'),
  v.trim(),
  v.minLength(1, 'name must not be empty.'),
  v.maxLength(100, 'name must be at most 100 characters.'),
);

const settings = v.optional(
  v.object(
    {
      allowWrite: v.optional(v.boolean('settings.allowWrite must be true or false.')),
      allowedSenders: v.optional(
        v.pipe(
          v.array(
            v.pipe(
              v.string('settings.allowedSenders must list strings.'),
              v.trim(),
              v.minLength(1, 'settings.allowedSenders must not contain empty entries.'),
              v.maxLength(64, 'settings.allowedSenders entries must be at most 64 characters.'),
            ),
            'settings.allowedSenders must be an array of strings.',
          ),
          v.maxLength(500, 'settings.allowedSenders may hold at most 500 entries.'),
        ),
      ),
      apiBaseUrl: v.optional(
        v.nullable(
          v.pipe(
            v.string('settings.apiBaseUrl must be a string.'),
            v.url('settings.apiBaseUrl must be an absolute URL.'),
            v.regex(/^https?:\/\//i, 'settings.apiBaseUrl must use http or https.'),
            v.maxLength(2048),
          ),
        ),
      ),
    },
    objectMessage('settings'),
  ),
);

/** The webhook secret, when the caller picks it (else one is generated): 16-256 URL-safe characters. */
const webhookSecret = v.optional(secretish('webhookSecret', 16, 256));
const enabled = v.optional(v.boolean('enabled must be true or false.'));

/** Body of `POST /api/v1/channels`: the provider decides which credentials are required. */
export const CreateChannelBody = v.variant(
  'provider',
  [
    v.object(
      {
        provider: v.literal('telegram'),
        name,
        enabled,
        webhookSecret,
        settings,
        credentials: v.object(
          {
            botToken: v.pipe(
              token('credentials.botToken'),
              v.regex(
                /^\d{1,20}:[A-Za-z0-9_-]{20,}$/,
                'credentials.botToken must look like 123456789:AA... (the token BotFather gave you).',
              ),
            ),
            /** The `secret_token` you pass to setWebhook; Telegram echoes it in a header. */
            secretToken: v.optional(secretish('credentials.secretToken', 1, 256)),
          },
          objectMessage('credentials'),
        ),
      },
      objectMessage('body'),
    ),
    v.object(
      {
        provider: v.literal('whatsapp'),
        name,
        enabled,
        webhookSecret,
        settings,
        credentials: v.object(
          {
            accessToken: token('credentials.accessToken'),
            phoneNumberId: v.pipe(
              v.string('credentials.phoneNumberId must be a string.'),
              v.trim(),
              v.regex(/^\d{1,32}$/, 'credentials.phoneNumberId must be the digits of the phone-number id.'),
            ),
            appSecret: v.optional(token('credentials.appSecret')),
            verifyToken: v.optional(token('credentials.verifyToken')),
          },
          objectMessage('credentials'),
        ),
      },
      objectMessage('body'),
    ),
    v.object({ provider: v.literal('web'), name, enabled, webhookSecret, settings }, objectMessage('body')),
  ],
  'provider must be one of telegram, whatsapp, web.',
);

export type CreateChannelInput = v.InferOutput<typeof CreateChannelBody>;

/** Body of `POST /api/v1/channels/:id/toggle` (optional): without `enabled` the state flips. */
export const ToggleChannelBody = v.object({ enabled }, objectMessage('body'));

/** Body of `POST /api/v1/channels/:id/messages` (web channels). */
export const WebMessageBody = v.object(MESSAGE_FIELDS, objectMessage('body'));
