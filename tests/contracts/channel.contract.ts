import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect } from 'vitest';
import type { LlmProvider } from '../../core/agent/provider.ts';
import type { ChannelSender, SendTarget } from '../../core/channels/types.ts';
import type { channelHarness } from '../helpers/channels-harness.ts';
import { scriptedProvider } from '../helpers/channels-harness.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

type Harness = Awaited<ReturnType<typeof channelHarness>>;
type Answer = Awaited<ReturnType<Harness['send']>>;

/** A channel created for a case: its id and webhook secret. */
export interface MadeChannel {
  id: string;
  secret: string;
}

/**
 * One provider's channel over a whole app (tests/helpers/channels-harness.ts), talking to a real
 * loopback server that plays the provider's API where it has one.
 */
export interface ChannelFixture {
  h: Harness;
  /** Creates a channel of this provider; `extra` joins the creation body (enabled, settings). */
  createChannel(extra?: { enabled?: boolean; settings?: Record<string, unknown> }): Promise<MadeChannel>;
  /** A text message from sender `from` (one of `senders`) arrives on the channel. */
  message(ch: MadeChannel, text: string, from?: string): Promise<Answer>;
  /** What the provider is answered for a message to a disabled channel (matched as a subset). */
  disabledAnswer: { status: number; json: Record<string, unknown> };
  /** Two different senders, in the provider's own ids. */
  senders: [string, string];
  /** What reached the users so far: to whom, and the text, in order. */
  replies(): { to: string; text: string }[];
  /** Resolves once every reply in flight has been sent. */
  settle(): Promise<void>;
  /** The provider's outbound API (the ChannelSender port), where it has one. */
  api?: SenderFixture;
  cleanup(): Promise<void>;
}

/** The ChannelSender adapter and the fake API it sends to. */
export interface SenderFixture {
  port: ChannelSender;
  /** Credentials and base URL the fake API accepts. */
  target: SendTarget;
  /** A recipient the API accepts. */
  to: string;
  /** Credentials the fake API refuses (a wrong token), with the secret that must not leak. */
  refused: { target: SendTarget; secret: string };
  /** What the fake API received: recipient and text. */
  sent(): { to: string; text: string }[];
}

export interface ChannelContractOptions {
  /** A fresh app and provider API; `provider` is the agent's LLM (default: the local one). */
  create: (opts: { provider?: LlmProvider }) => Promise<ChannelFixture>;
  skip?: DeclaredSkip[];
}

/** Every case title of the suite, for declaring skips without typos. */
export const CHANNEL_CASES = {
  answers: "answers a text message with the agent's reply, delivered to its sender",
  disabled: 'a disabled channel never calls the agent nor replies, and answers again once enabled',
  history: 'hands the conversation so far to the agent with the next message',
  perSender: 'keeps one conversation per sender',
  writes: 'offers the tools that change notes only when the channel allows writes',
  split: "splits a reply longer than the provider's limit into parts in order, each within the limit",
  allowlist: 'answers only the senders on the allowlist',
  send: 'the sender delivers one text to the recipient through the provider API',
  maxChars: 'the sender takes a text of exactly maxChars (the provider limit)',
  refused: "a refused send rejects naming the status and the provider's message, never the token",
  unreachable: 'an unreachable API rejects saying so, naming neither the URL nor the token',
  noCredentials: 'a channel without its credentials is refused before any call',
} as const;

/** The base URL of a loopback port that nothing listens on (connections are refused at once). */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/**
 * What every channel provider does with a message (Telegram and WhatsApp through their
 * webhooks and their ChannelSender, web through its synchronous route), run against each.
 */
export function runChannelContract(name: string, opts: ChannelContractOptions): void {
  const C = CHANNEL_CASES;
  describe(`channel contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(opts.skip);
    const open: ChannelFixture[] = [];
    const make = async (provider?: LlmProvider) => {
      const fx = await opts.create({ provider });
      open.push(fx);
      return fx;
    };
    afterEach(async () => {
      for (const fx of open.splice(0)) await fx.cleanup();
    });

    test(C.answers, async () => {
      const fx = await make();
      const ch = await fx.createChannel();
      const expected = (await fx.h.agent.chat({ message: 'compost' })).reply;
      expect(expected).toContain('garden/compost.md');
      const r = await fx.message(ch, 'compost');
      expect(r.status).toBe(200);
      await fx.settle();
      expect(fx.replies()).toEqual([{ to: fx.senders[0], text: expected }]);
    });

    test(C.disabled, async () => {
      const script = scriptedProvider(() => 'hello');
      const fx = await make(script.provider);
      const ch = await fx.createChannel({ enabled: false });
      const r = await fx.message(ch, 'compost');
      expect({ status: r.status, json: r.json }).toMatchObject(fx.disabledAnswer);
      await fx.settle();
      expect(fx.replies()).toEqual([]);
      expect(script.requests).toEqual([]);
      await fx.h.call('POST', `/api/v1/channels/${ch.id}/toggle`, { enabled: true });
      expect((await fx.message(ch, 'compost again')).status).toBe(200);
      await fx.settle();
      expect(fx.replies()).toEqual([{ to: fx.senders[0], text: 'hello' }]);
    });

    test(C.history, async () => {
      const script = scriptedProvider((req) => `answer ${req.messages.length}`);
      const fx = await make(script.provider);
      const ch = await fx.createChannel();
      await fx.message(ch, 'first');
      await fx.settle();
      await fx.message(ch, 'second');
      await fx.settle();
      expect(script.requests[1]!.messages).toEqual([
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer 1' },
        { role: 'user', content: 'second' },
      ]);
      expect(fx.replies().map((r) => r.text)).toEqual(['answer 1', 'answer 3']);
    });

    test(C.perSender, async () => {
      const script = scriptedProvider((req) => `answer ${req.messages.length}`);
      const fx = await make(script.provider);
      const ch = await fx.createChannel();
      const [a, b] = fx.senders;
      await fx.message(ch, 'from a', a);
      await fx.settle();
      await fx.message(ch, 'from b', b);
      await fx.settle();
      expect(script.requests[1]!.messages).toEqual([{ role: 'user', content: 'from b' }]);
      expect(fx.replies()).toEqual([
        { to: a, text: 'answer 1' },
        { to: b, text: 'answer 1' },
      ]);
    });

    test(C.writes, async () => {
      const script = scriptedProvider(() => 'ok');
      const fx = await make(script.provider);
      const ro = await fx.createChannel({ settings: { allowWrite: false } });
      await fx.message(ro, 'read only');
      await fx.settle();
      const rw = await fx.createChannel({ settings: { allowWrite: true } });
      await fx.message(rw, 'may write');
      await fx.settle();
      expect(script.requests).toHaveLength(2);
      expect(script.requests[0]!.tools.some((t) => t.write)).toBe(false);
      expect(script.requests[0]!.tools.some((t) => t.name === 'search_notes')).toBe(true);
      expect(script.requests[1]!.tools.some((t) => t.write)).toBe(true);
    });

    test(C.split, async () => {
      const para = (n: number) => `Paragraph ${n}: ${'word '.repeat(300).trim()}`;
      const long = Array.from({ length: 8 }, (_, i) => para(i + 1)).join('\n\n');
      const fx = await make(scriptedProvider(() => long).provider);
      const ch = await fx.createChannel();
      await fx.message(ch, 'tell me everything');
      await fx.settle();
      const texts = fx.replies().map((r) => r.text);
      expect(texts.length).toBeGreaterThan(2);
      for (const t of texts) expect(t.length).toBeLessThanOrEqual(fx.api!.port.maxChars);
      expect(texts.join('\n\n')).toBe(long);
    });

    test(C.allowlist, async () => {
      const script = scriptedProvider(() => 'hi friend');
      const fx = await make(script.provider);
      const [friend, stranger] = fx.senders;
      const ch = await fx.createChannel({ settings: { allowedSenders: [friend] } });
      const refused = await fx.message(ch, 'let me in', stranger);
      expect(refused.json.data).toMatchObject({ status: 'ignored', reasons: ['sender not allowed'] });
      await fx.message(ch, 'hello', friend);
      await fx.settle();
      expect(fx.replies()).toEqual([{ to: friend, text: 'hi friend' }]);
      expect(script.requests).toHaveLength(1);
    });

    test(C.send, async () => {
      const { api } = await make();
      await api!.port.send(api!.target, api!.to, 'Hello from Quire ✓');
      expect(api!.sent()).toEqual([{ to: api!.to, text: 'Hello from Quire ✓' }]);
    });

    test(C.maxChars, async () => {
      const { api } = await make();
      expect(api!.port.maxChars).toBe(4096);
      const text = 'x'.repeat(api!.port.maxChars);
      await api!.port.send(api!.target, api!.to, text);
      expect(api!.sent()).toEqual([{ to: api!.to, text }]);
    });

    test(C.refused, async () => {
      const { api } = await make();
      const err = await api!.port.send(api!.refused.target, api!.to, 'hi').catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toMatch(/answered 401 \(.+\)/);
      expect(err.message).not.toContain(api!.refused.secret);
    });

    test(C.unreachable, async () => {
      const { api } = await make();
      const target = { ...api!.target, apiBaseUrl: await closedPort() };
      const err = await api!.port.send(target, api!.to, 'hi').catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toMatch(/could not reach the API \(ECONNREFUSED\)/);
      expect(err.message).not.toContain('127.0.0.1');
      for (const secret of Object.values(target.credentials)) expect(err.message).not.toContain(secret);
    });

    test(C.noCredentials, async () => {
      const { api } = await make();
      const err = await api!.port.send({ ...api!.target, credentials: {} }, api!.to, 'hi').catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toMatch(/the channel has no/);
      expect(api!.sent()).toEqual([]);
    });

    checkSkips();
  });
}
