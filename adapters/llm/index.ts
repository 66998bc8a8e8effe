/** LLM provider adapters behind the core's `LlmProvider` port (create.ts loads them lazily). */
export { aiSdkProvider } from './ai-sdk.ts';
export { ANTHROPIC_BASE_URL, OPENAI_BASE_URL } from './base-urls.ts';
export { type CreateProviderOptions, createProvider } from './create.ts';
export { providerError, redact } from './errors.ts';
export { anthropicProvider, openaiProvider } from './providers.ts';
