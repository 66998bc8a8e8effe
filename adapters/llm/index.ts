/** LLM provider adapters behind the core's `LlmProvider` port (create.ts loads them lazily). */
export { aiSdkProvider } from './ai-sdk.ts';
export { ANTHROPIC_BASE_URL, type CreateProviderOptions, createProvider, OPENAI_BASE_URL } from './create.ts';
export { providerError, redact } from './errors.ts';
export { anthropicProvider, openaiProvider } from './providers.ts';
