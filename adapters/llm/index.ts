/** LLM provider adapters behind the core's `LlmProvider` port. */
import { localProvider } from '../../core/agent/local-provider.ts';
import type { LlmProvider } from '../../core/agent/provider.ts';
import { anthropicProvider, openaiProvider } from './providers.ts';

export { aiSdkProvider } from './ai-sdk.ts';
export { providerError, redact } from './errors.ts';
export { ANTHROPIC_BASE_URL, anthropicProvider, OPENAI_BASE_URL, openaiProvider } from './providers.ts';

/** Picks the provider by name (AGENT_PROVIDER); `local` needs nothing else. */
export function createProvider(o: {
  provider: 'local' | 'openai' | 'anthropic';
  model: string;
  baseURL?: string | null;
  apiKey?: string | null;
  fetch?: typeof globalThis.fetch;
}): LlmProvider {
  if (o.provider === 'local') return localProvider();
  const opts = {
    model: o.model,
    baseURL: o.baseURL ?? undefined,
    apiKey: o.apiKey ?? undefined,
    fetch: o.fetch,
  };
  return o.provider === 'openai' ? openaiProvider(opts) : anthropicProvider(opts);
}
