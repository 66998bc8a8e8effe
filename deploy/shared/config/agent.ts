import { ConfigError, type Env, readVariables, withPrefix } from './read.ts';
import { SERVER_VARIABLES } from './variables.ts';

/** The agent's settings from AGENT_* (docs/guide/agent.md). */
export interface AgentConfig {
  enabled: boolean;
  provider: 'local' | 'openai' | 'anthropic';
  /** Empty for `local` (it has its own name). */
  model: string;
  /** Null means the provider's public address. */
  baseURL: string | null;
  /** Never logged or answered. */
  apiKey: string | null;
  timeoutMs: number;
  maxSteps: number;
}

/** Default model of the `anthropic` provider when AGENT_MODEL is not set. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

/** Reads and validates AGENT_*; throws ConfigError naming the variable. */
export function loadAgentConfig(env: Env): AgentConfig {
  const vars = readVariables(SERVER_VARIABLES, env, withPrefix(SERVER_VARIABLES, 'AGENT_'));
  const provider = vars.AGENT_PROVIDER;
  const model = vars.AGENT_MODEL ?? '';
  const baseURL = vars.AGENT_BASE_URL ?? null;
  const apiKey = vars.AGENT_API_KEY ?? null;
  if (provider === 'openai') {
    if (!model) {
      throw new ConfigError(
        'AGENT_PROVIDER=openai needs AGENT_MODEL (e.g. gpt-4o-mini, or llama3.1 for Ollama).',
      );
    }
    if (!baseURL && !apiKey) {
      throw new ConfigError(
        'AGENT_PROVIDER=openai without AGENT_BASE_URL talks to api.openai.com and needs AGENT_API_KEY; for Ollama set AGENT_BASE_URL=http://localhost:11434/v1.',
      );
    }
  }
  if (provider === 'anthropic' && !apiKey) {
    throw new ConfigError('AGENT_PROVIDER=anthropic needs AGENT_API_KEY.');
  }
  return {
    enabled: vars.AGENT_ENABLED,
    provider,
    model: provider === 'anthropic' ? model || DEFAULT_ANTHROPIC_MODEL : provider === 'local' ? '' : model,
    baseURL,
    apiKey,
    timeoutMs: vars.AGENT_TIMEOUT_MS,
    maxSteps: vars.AGENT_MAX_STEPS,
  };
}
