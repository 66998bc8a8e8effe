import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../../adapters/llm/index.ts';
import { loadAgentConfig } from '../../../../deploy/shared/config/agent.ts';
import { ConfigError, loadConfig } from '../../../../deploy/shared/config/server.ts';

describe('AGENT_* config', () => {
  it('defaults to the enabled local provider', () => {
    expect(loadConfig({}, '/srv').agent).toEqual({
      enabled: true,
      provider: 'local',
      model: '',
      baseURL: null,
      apiKey: null,
      timeoutMs: 60_000,
      maxSteps: 8,
    });
    expect(createProvider(loadAgentConfig({})).name).toBe('local');
  });

  it('reads an Ollama setup', () => {
    const c = loadAgentConfig({
      AGENT_PROVIDER: 'openai',
      AGENT_BASE_URL: 'http://localhost:11434/v1/',
      AGENT_MODEL: 'llama3.1',
      AGENT_ENABLED: 'true',
    });
    expect(c).toMatchObject({ provider: 'openai', baseURL: 'http://localhost:11434/v1', model: 'llama3.1' });
    const p = createProvider(c);
    expect([p.name, p.model]).toEqual(['openai', 'llama3.1']);
    expect(p.description).toContain('http://localhost:11434/v1');
  });

  it('gives anthropic a default model', () => {
    const c = loadAgentConfig({ AGENT_PROVIDER: 'anthropic', AGENT_API_KEY: 'k-123' });
    expect(c.model).toBe('claude-sonnet-4-5');
    expect(createProvider(c).description).toContain('https://api.anthropic.com/v1');
  });

  it('reads AGENT_ENABLED=false', () => {
    expect(loadAgentConfig({ AGENT_ENABLED: 'false' }).enabled).toBe(false);
  });

  it.each([
    [{ AGENT_PROVIDER: 'gpt' }, /AGENT_PROVIDER must be one of local, openai, anthropic/],
    [{ AGENT_PROVIDER: 'openai', AGENT_BASE_URL: 'http://localhost:11434/v1' }, /needs AGENT_MODEL/],
    [{ AGENT_PROVIDER: 'openai', AGENT_MODEL: 'gpt-4o-mini' }, /needs AGENT_API_KEY/],
    [{ AGENT_PROVIDER: 'anthropic' }, /AGENT_PROVIDER=anthropic needs AGENT_API_KEY/],
    [{ AGENT_BASE_URL: 'localhost:11434' }, /AGENT_BASE_URL/],
    [{ AGENT_ENABLED: 'maybe' }, /AGENT_ENABLED/],
    [{ AGENT_TIMEOUT_MS: '10' }, /AGENT_TIMEOUT_MS/],
    [{ AGENT_MAX_STEPS: '0' }, /AGENT_MAX_STEPS/],
  ])('refuses %j with a message naming the variable', (env, re) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(re);
  });

  it('never puts the key into a config error', () => {
    try {
      loadAgentConfig({ AGENT_PROVIDER: 'openai', AGENT_API_KEY: 'sk-very-secret-key' });
    } catch (err) {
      expect(String(err)).not.toContain('sk-very-secret-key');
      return;
    }
    throw new Error('expected a ConfigError');
  });
});
