/**
 * Real HTTP servers on loopback that play Telegram's Bot API and the WhatsApp Cloud API: they
 * check what the real APIs check (token, required fields, the 4096-character limit), answer in
 * their shapes, and record every request (path, headers, JSON body).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

type Handler = (req: Recorded) => { status: number; body: unknown };

async function startFake(handle: Handler) {
  const requests: Recorded[] = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const rec: Recorded = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
    requests.push(rec);
    const a = handle(rec);
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Telegram's Bot API: `POST /bot<token>/sendMessage`; only `tokens` are valid bots. */
export async function startFakeTelegram(tokens: string[]) {
  let messageId = 0;
  const fake = await startFake((req) => {
    const m = req.path.match(/^\/bot([^/]+)\/(\w+)$/);
    if (!m || !tokens.includes(decodeURIComponent(m[1]!)))
      return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    if (m[2] !== 'sendMessage')
      return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    const b = req.body ?? {};
    if (b.chat_id === undefined)
      return {
        status: 400,
        body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
      };
    if (typeof b.text !== 'string' || b.text.trim() === '')
      return {
        status: 400,
        body: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' },
      };
    if (b.text.length > 4096)
      return {
        status: 400,
        body: { ok: false, error_code: 400, description: 'Bad Request: message is too long' },
      };
    return {
      status: 200,
      body: {
        ok: true,
        result: {
          message_id: ++messageId,
          chat: { id: Number(b.chat_id) },
          date: 1_700_000_000,
          text: b.text,
        },
      },
    };
  });
  return {
    ...fake,
    /** The sendMessage calls: chat id and text. */
    sent: () =>
      fake.requests
        .filter((r) => r.path.endsWith('/sendMessage'))
        .map((r) => ({ chatId: String(r.body.chat_id), text: r.body.text as string, path: r.path })),
  };
}

/** The WhatsApp Cloud API: `POST /v21.0/<phoneNumberId>/messages` with `Authorization: Bearer <token>`. */
export async function startFakeWhatsApp(accounts: { phoneNumberId: string; accessToken: string }[]) {
  let n = 0;
  const fake = await startFake((req) => {
    const m = req.path.match(/^\/v21\.0\/(\d+)\/messages$/);
    const account = accounts.find((a) => a.phoneNumberId === m?.[1]);
    if (!m || !account)
      return {
        status: 400,
        body: { error: { message: 'Unsupported post request.', type: 'GraphMethodException', code: 100 } },
      };
    if (req.headers.authorization !== `Bearer ${account.accessToken}`)
      return {
        status: 401,
        body: { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } },
      };
    const b = req.body ?? {};
    if (b.messaging_product !== 'whatsapp' || typeof b.to !== 'string' || b.type !== 'text')
      return {
        status: 400,
        body: { error: { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100 } },
      };
    if (typeof b.text?.body !== 'string' || b.text.body.length > 4096)
      return { status: 400, body: { error: { message: '(#100) Param text[body] is invalid', code: 100 } } };
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: b.to, wa_id: b.to }],
        messages: [{ id: `wamid.fake${++n}` }],
      },
    };
  });
  return {
    ...fake,
    url: `${fake.base}/v21.0`,
    /** The messages sent: number and text. */
    sent: () =>
      fake.requests
        .filter((r) => r.path.endsWith('/messages'))
        .map((r) => ({ to: r.body.to as string, text: r.body.text?.body as string, path: r.path })),
  };
}

/** A Telegram update carrying a text message. */
export function telegramUpdate(
  updateId: number,
  text: string,
  from = { id: 1001, username: 'ada' },
  chatId = 1001,
) {
  return {
    update_id: updateId,
    message: {
      message_id: updateId * 10,
      from: { id: from.id, is_bot: false, first_name: 'Ada', username: from.username },
      chat: { id: chatId, type: 'private', first_name: 'Ada' },
      date: 1_700_000_000,
      text,
    },
  };
}

/** A WhatsApp Cloud API notification with one message (text, or another type). */
export function whatsappNotification(
  phoneNumberId: string,
  msg: { id: string; from: string; text?: string; type?: string },
) {
  const type = msg.type ?? 'text';
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: 'Ada' }, wa_id: msg.from }],
              messages: [
                {
                  from: msg.from,
                  id: msg.id,
                  timestamp: '1700000000',
                  type,
                  ...(type === 'text' ? { text: { body: msg.text ?? '' } } : { [type]: { id: 'media-1' } }),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
