/**
 * Picks the LLM provider by name without loading the AI SDK: a remote provider's module (and the
 * AI SDK under it) is imported on its first probe or step, so a server whose agent is `local`
 * never loads it, and the release bundle keeps it in a chunk of its own.
 */
import { localProvider } from '../../core/agent/local-provider.ts';
import type { LlmProvider } from '../../core/agent/provider.ts';
import { ANTHROPIC_BASE_URL, OPENAI_BASE_URL } from './base-urls.ts';

/** What `createProvider` needs. */
export interface CreateProviderOptions {
  provider: 'local' | 'openai' | 'anthropic';
  model: string;
  baseURL?: string | null;
  apiKey?: string | null;
  fetch?: typeof globalThis.fetch;
}

/** Picks the provider by name (AGENT_PROVIDER); `local` needs nothing else. */
export function createProvider(o: CreateProviderOptions): LlmProvider {
  if (o.provider === 'local') return localProvider();
  const kind = o.provider;
  const opts = {
    model: o.model,
    baseURL: o.baseURL ?? undefined,
    apiKey: o.apiKey ?? undefined,
    fetch: o.fetch,
  };
  let real: Promise<LlmProvider> | undefined;
  const load = (): Promise<LlmProvider> => {
    real ??= import('./providers.ts').then((m) =>
      kind === 'openai' ? m.openaiProvider(opts) : m.anthropicProvider(opts),
    );
    return real;
  };
  const baseURL = (opts.baseURL ?? (kind === 'openai' ? OPENAI_BASE_URL : ANTHROPIC_BASE_URL)).replace(
    /\/+$/,
    '',
  );
  return {
    name: kind,
    model: o.model,
    description:
      kind === 'openai'
        ? `OpenAI-compatible chat completions at ${baseURL}, with tool calling.`
        : `Anthropic Messages API at ${baseURL}, with tool use.`,
    probe: async (signal) => {
      const p = await load();
      return p.probe ? p.probe(signal) : true;
    },
    step: async (req) => (await load()).step(req),
  };
}
