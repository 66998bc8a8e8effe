import { afterEach, describe, expect } from 'vitest';
import type { LlmProvider } from '../../core/agent/provider.ts';
import { createAgent } from '../../core/index.ts';
import type { Logger } from '../../core/ports.ts';
import { vaultNotes } from '../helpers/agent-fixtures.ts';
import { capturingLogger } from '../helpers/logger.ts';
import { type DeclaredSkip, withDeclaredSkips } from './skips.ts';

/**
 * One provider under test. Remote providers talk to a real loopback server speaking their API,
 * which plays `rulesModel` (tests/helpers/fake-llm.ts) unless told to fail.
 */
export interface LlmProviderFixture {
  provider: LlmProvider;
  /** The API key the provider was given (absent: it takes none). */
  key?: string;
  /** The provider's API, where it has one. */
  api?: {
    /** Base URL the provider calls. */
    url: string;
    /** From now on every model call is answered `status` with the API's own error `message`. */
    fail(status: number, message: string): void;
    /** From now on model calls are never answered. */
    hang(): void;
    /** How many model calls (not probes) it received. */
    calls(): number;
  };
  /** The same provider aimed at a base URL where nothing listens. */
  unreachable?: () => Promise<{ provider: LlmProvider; url: string }>;
  cleanup(): Promise<void>;
}

export interface LlmProviderContractOptions {
  /** What `provider.name` and `provider.model` must be, and whether the agent calls it local. */
  expect: { name: string; model: string; local: boolean };
  create: () => Promise<LlmProviderFixture>;
  skip?: DeclaredSkip[];
}

/** Every case title of the suite, for declaring skips without typos. */
export const LLM_CASES = {
  identity: 'names itself: a name, a model and a one-sentence description, shown in status',
  answers: 'answers a question by searching the notes, citing what it found',
  refusesWrites: 'changes no note for a public channel: create_note is refused and nothing is written',
  writes: 'creates a note when the channel may write',
  reachable: 'is reachable, and status says so',
  refused: "a refusal by the API is AGENT_PROVIDER_ERROR naming the status and the API's message",
  wrongKey: 'a wrong key is AGENT_PROVIDER_ERROR naming AGENT_API_KEY; the key is in no message or log line',
  hangs: 'a provider that never answers is cut at the time-out',
  unreachable:
    'an unreachable base URL is AGENT_PROVIDER_ERROR naming AGENT_BASE_URL, and status says unreachable',
} as const;

/**
 * The guarantees of the LlmProvider port (`core/agent/provider.ts`) as the agent relies on them,
 * run against every provider through `createAgent` over a small vault (tests/helpers/agent-fixtures.ts).
 */
export function runLlmProviderContract(name: string, opts: LlmProviderContractOptions): void {
  const C = LLM_CASES;
  describe(`LlmProvider contract: ${name}`, () => {
    const { test, checkSkips } = withDeclaredSkips(opts.skip);
    const open: LlmProviderFixture[] = [];
    const setup = async (agentOpts: { timeoutMs?: number; provider?: LlmProvider } = {}) => {
      const fx = await opts.create();
      open.push(fx);
      const { notes, clock } = await vaultNotes();
      const { logger, lines } = capturingLogger();
      const agent = createAgent({
        notes,
        clock,
        logger: logger as Logger,
        provider: agentOpts.provider ?? fx.provider,
        timeoutMs: agentOpts.timeoutMs,
      });
      return { fx, notes, agent, lines };
    };
    afterEach(async () => {
      for (const fx of open.splice(0)) await fx.cleanup();
    });

    test(C.identity, async () => {
      const { fx, agent } = await setup();
      expect(fx.provider.name).toBe(opts.expect.name);
      expect(fx.provider.model).toBe(opts.expect.model);
      expect(fx.provider.description).toMatch(/^[A-Z].{10,200}\.$/);
      expect(fx.provider.description.split(/\.\s/)).toHaveLength(1);
      expect(await agent.status()).toMatchObject({
        enabled: true,
        provider: opts.expect.name,
        model: opts.expect.model,
        description: fx.provider.description,
        local: opts.expect.local,
      });
    });

    test(C.answers, async () => {
      const { agent } = await setup();
      const r = await agent.chat({ message: 'What do my notes say about compost?', channel: 'web' });
      expect(r.actions[0]).toEqual({ type: 'search_notes', summary: 'Searched "compost": 2 found.' });
      expect(r.relatedNotes).toEqual([
        { path: 'garden/compost.md', title: 'Compost' },
        { path: 'garden/plan.md', title: 'Garden plan' },
      ]);
      expect(r.reply).toContain('garden/compost.md');
      expect(r).toMatchObject({ provider: opts.expect.name, model: opts.expect.model });
      expect(new Date(r.createdAt).toISOString()).toBe(r.createdAt);
    });

    test(C.refusesWrites, async () => {
      const { agent, notes } = await setup();
      for (const channel of ['telegram', 'whatsapp'] as const) {
        const r = await agent.chat({ message: 'create a note titled Spam with text hi', channel });
        expect(r.actions).toEqual([]);
        expect(r.reply).not.toBe('');
      }
      await expect(notes.get('Spam.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    });

    test(C.writes, async () => {
      const { agent, notes } = await setup();
      const r = await agent.chat({
        message: 'create a note titled Pond with text dig in autumn',
        channel: 'web',
      });
      expect(r.actions).toEqual([{ type: 'create_note', summary: 'Created "Pond".', path: 'Pond.md' }]);
      expect((await notes.get('Pond.md')).content).toBe('# Pond\n\ndig in autumn\n');
      const allowed = await agent.chat({
        message: 'create a note titled Ok',
        channel: 'telegram',
        allowWrite: true,
      });
      expect(allowed.actions.map((a) => a.type)).toEqual(['create_note']);
    });

    test(C.reachable, async () => {
      const { agent } = await setup();
      expect((await agent.status()).reachable).toBe(true);
    });

    test(C.refused, async () => {
      const { fx, agent } = await setup();
      fx.api!.fail(500, 'the model crashed');
      const err = await agent.chat({ message: 'compost?' }).catch((e) => e);
      expect(err).toMatchObject({ code: 'AGENT_PROVIDER_ERROR' });
      expect(err.message).toContain(`the ${opts.expect.name} provider at ${fx.api!.url} answered 500`);
      expect(err.message).toContain('the model crashed');
      expect(fx.api!.calls()).toBe(1);
    });

    test(C.wrongKey, async () => {
      const { fx, agent, lines } = await setup();
      const key = fx.key!;
      fx.api!.fail(401, `Incorrect API key provided: ${key}.`);
      const err = await agent.chat({ message: 'compost?' }).catch((e) => e);
      expect(err).toMatchObject({ code: 'AGENT_PROVIDER_ERROR' });
      expect(err.message).toContain('answered 401');
      expect(err.message).toContain('check AGENT_API_KEY');
      const status = JSON.stringify(await agent.status());
      for (const text of [err.message, status, lines.join('\n')]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(key.slice(3, 15));
      }
    });

    test(C.hangs, async () => {
      const { fx, agent } = await setup({ timeoutMs: 400 });
      fx.api!.hang();
      const started = Date.now();
      const err = await agent.chat({ message: 'compost?' }).catch((e) => e);
      const took = Date.now() - started;
      expect(err).toMatchObject({ code: 'AGENT_PROVIDER_ERROR' });
      expect(err.message).toContain('did not finish within 400 ms');
      expect(took).toBeGreaterThanOrEqual(350);
      expect(took).toBeLessThan(5000);
    });

    test(C.unreachable, async () => {
      const fx = await opts.create();
      open.push(fx);
      const { provider, url } = await fx.unreachable!();
      const { agent } = await setup({ provider });
      const err = await agent.chat({ message: 'compost?' }).catch((e) => e);
      expect(err).toMatchObject({ code: 'AGENT_PROVIDER_ERROR' });
      expect(err.message).toContain(
        `Could not reach the ${opts.expect.name} provider at ${url} (ECONNREFUSED)`,
      );
      expect(err.message).toContain('check AGENT_BASE_URL');
      expect((await agent.status()).reachable).toBe(false);
    });

    checkSkips();
  });
}
