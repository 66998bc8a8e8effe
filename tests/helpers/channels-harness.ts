/** A whole server app with auth, the agent and channels, over an in-memory vault, for the channel tests. */
import { telegramSender, whatsappSender } from '../../adapters/channels/index.ts';
import { createApp } from '../../adapters/http/app.ts';
import type { RateLimits } from '../../adapters/http/types.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createAgent, localProvider } from '../../core/agent/agent.ts';
import type { LlmProvider, StepRequest } from '../../core/agent/provider.ts';
import { createAuthenticator } from '../../core/auth/authenticator.ts';
import { createAuthService } from '../../core/auth/service.ts';
import { createChannelService } from '../../core/channels/service.ts';
import { type RandomBytes, secureRandom } from '../../core/crypto.ts';
import type { Logger, StateStore } from '../../core/ports.ts';
import { vaultNotes } from './agent-fixtures.ts';
import { requester } from './app.ts';
import { silentLogger } from './logger.ts';

export interface HarnessOptions {
  state?: StateStore;
  provider?: LlmProvider;
  telegramBase?: string;
  whatsappBase?: string;
  rateLimits?: RateLimits | false;
  random?: RandomBytes;
  logger?: Logger;
}

/** An LLM provider (the port) that answers every step with `reply(request)` and records the requests. */
export function scriptedProvider(reply: (req: StepRequest) => string) {
  const requests: StepRequest[] = [];
  const provider: LlmProvider = {
    name: 'scripted',
    model: 'scripted-1',
    description: 'A test provider.',
    async step(req) {
      requests.push(req);
      return { text: reply(req), toolCalls: [] };
    },
  };
  return { provider, requests };
}

/** The app, its channel service, and helpers: `call` in-process, `client` sets the socket address. */
export async function channelHarness(opts: HarnessOptions = {}) {
  const { notes, clock } = await vaultNotes();
  const state = opts.state ?? memoryStateStore();
  const logger = opts.logger ?? silentLogger;
  const auth = createAuthService({ state, clock, logger });
  await auth.init();
  const agent = createAgent({ notes, clock, logger, provider: opts.provider ?? localProvider() });
  const channels = createChannelService({
    state,
    clock,
    logger,
    agent,
    random: opts.random ?? secureRandom,
    senders: {
      telegram: telegramSender({ baseUrl: opts.telegramBase ?? 'http://127.0.0.1:9' }),
      whatsapp: whatsappSender({ baseUrl: opts.whatsappBase ?? 'http://127.0.0.1:9' }),
    },
  });
  await channels.load();
  let client = '10.0.0.1';
  const app = createApp({
    notes,
    agent,
    channels,
    version: 't',
    clock,
    logger,
    authenticator: createAuthenticator({ mode: 'api-key', auth, jwt: null }),
    setup: {
      service: auth,
      jwt: null,
      publicUrl: null,
      config: {
        version: 't',
        authMode: 'api-key',
        pairingMode: 'relay',
        relayUrl: 'http://relay.test:8787',
        host: '127.0.0.1',
        port: 3000,
        cors: [],
        clientUrl: null,
        testClientUrl: null,
        localDevUiUrl: 'http://localhost:5173',
      },
    },
    rateLimits: opts.rateLimits ?? false,
    socketAddress: () => client,
  });
  const send = requester(app);
  const key = { 'x-service-key': auth.firstKeyPlain()! };
  return {
    app,
    agent,
    notes,
    state,
    channels,
    serverId: auth.serverId,
    key,
    /** A protected call with the first key. */
    call: (method: string, path: string, body?: unknown) => send(method, path, { body, headers: key }),
    /** A public call, as a provider makes it. */
    send,
    /** Posts raw text to a webhook, with headers. */
    deliver: (provider: string, body: unknown, headers: Record<string, string> = {}, query = '') =>
      send('POST', `/api/v1/channels/webhook/${provider}${query}`, {
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers,
      }),
    setClient: (ip: string) => {
      client = ip;
    },
    /** Creates a channel and answers its id and webhook secret. */
    async create(body: Record<string, unknown>) {
      const r = await send('POST', '/api/v1/channels', { body, headers: key });
      if (r.status !== 201) throw new Error(`create failed: ${r.text}`);
      return { id: r.json.data.channel.id as string, secret: r.json.data.webhookSecret as string, res: r };
    },
  };
}

export const BOT_TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1';
export const BOT_TOKEN_2 = '987654321:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw2';
