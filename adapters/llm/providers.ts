/**
 * The real LLM providers: any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama,
 * LM Studio, vLLM, OpenRouter) and Anthropic's Messages API, both through the AI SDK.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LlmProvider } from '../../core/agent/provider.ts';
import { aiSdkProvider } from './ai-sdk.ts';
import { ANTHROPIC_BASE_URL, OPENAI_BASE_URL } from './base-urls.ts';

/** What a remote provider needs. `fetch` is injectable so runtimes and tests control it. */
export interface RemoteProviderOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
}

/** `GET url` answered 2xx within the probe's signal. */
async function probeGet(f: typeof fetch, url: string, headers: Record<string, string>, signal: AbortSignal) {
  try {
    const res = await f(url, { headers, signal });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** An OpenAI-compatible chat-completions provider with tool calling. */
export function openaiProvider(o: RemoteProviderOptions): LlmProvider {
  const baseURL = (o.baseURL ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  const f = o.fetch ?? globalThis.fetch;
  const compat = createOpenAICompatible({ name: 'openai', baseURL, apiKey: o.apiKey, fetch: f });
  const auth: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  return aiSdkProvider({
    name: 'openai',
    model: o.model,
    description: `OpenAI-compatible chat completions at ${baseURL}, with tool calling.`,
    baseURL,
    apiKey: o.apiKey,
    languageModel: compat.chatModel(o.model),
    probe: (signal) => probeGet(f, `${baseURL}/models`, auth, signal),
  });
}

/** Anthropic's Messages API with tool use. */
export function anthropicProvider(o: RemoteProviderOptions): LlmProvider {
  const baseURL = (o.baseURL ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '');
  const f = o.fetch ?? globalThis.fetch;
  const anthropic = createAnthropic({ baseURL, apiKey: o.apiKey ?? '', fetch: f });
  const headers = { 'x-api-key': o.apiKey ?? '', 'anthropic-version': '2023-06-01' };
  return aiSdkProvider({
    name: 'anthropic',
    model: o.model,
    description: `Anthropic Messages API at ${baseURL}, with tool use.`,
    baseURL,
    apiKey: o.apiKey,
    languageModel: anthropic(o.model),
    probe: (signal) => probeGet(f, `${baseURL}/models`, headers, signal),
  });
}
