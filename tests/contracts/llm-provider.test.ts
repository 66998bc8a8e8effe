import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicProvider, openaiProvider } from '../../adapters/llm/index.ts';
import { localProvider } from '../../core/index.ts';
import { type Answer, anthropicAnswer, openaiAnswer, rulesModel, startFakeLlm } from '../helpers/fake-llm.ts';
import { LLM_CASES as C, type LlmProviderFixture, runLlmProviderContract } from './llm-provider.contract.ts';

const KEY = 'sk-test-0123456789abcdef';

/** A loopback base URL where nothing listens. */
async function closedUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

const DIALECTS = {
  openai: {
    make: openaiProvider,
    answer: openaiAnswer,
    models: { object: 'list', data: [{ id: 'm1', object: 'model' }] },
    error: (status: number, message: string): Answer => ({
      status,
      body: { error: { message, type: 'server_error' } },
    }),
  },
  anthropic: {
    make: anthropicProvider,
    answer: anthropicAnswer,
    models: { data: [{ id: 'm1', type: 'model' }], has_more: false },
    error: (status: number, message: string): Answer => ({
      status,
      body: { type: 'error', error: { type: 'api_error', message } },
    }),
  },
};

/** A remote provider against a loopback server speaking its API and playing `rulesModel`. */
async function remote(dialect: 'openai' | 'anthropic'): Promise<LlmProviderFixture> {
  const d = DIALECTS[dialect];
  const model = rulesModel(dialect);
  let mode: Answer | null = null;
  const fake = await startFakeLlm(dialect, (req) => {
    if (req.method === 'GET') return { body: d.models };
    return mode ?? d.answer(model(req));
  });
  return {
    provider: d.make({ model: 'm1', baseURL: fake.url, apiKey: KEY }),
    key: KEY,
    api: {
      url: fake.url,
      fail: (status, message) => {
        mode = d.error(status, message);
      },
      hang: () => {
        mode = 'hang';
      },
      calls: () => fake.calls().length,
    },
    unreachable: async () => {
      const url = await closedUrl();
      return { provider: d.make({ model: 'm1', baseURL: url, apiKey: KEY }), url };
    },
    cleanup: fake.close,
  };
}

runLlmProviderContract('local (offline rules)', {
  expect: { name: 'local', model: 'quire-local-rules', local: true },
  create: async () => ({ provider: localProvider(), cleanup: async () => {} }),
  skip: [
    {
      reason: 'the local provider makes no network call and holds no key, so it cannot fail this way',
      tests: [C.refused, C.wrongKey, C.hangs, C.unreachable],
    },
  ],
});

runLlmProviderContract('openai (chat completions on loopback)', {
  expect: { name: 'openai', model: 'm1', local: false },
  create: () => remote('openai'),
});

runLlmProviderContract('anthropic (Messages API on loopback)', {
  expect: { name: 'anthropic', model: 'm1', local: false },
  create: () => remote('anthropic'),
});
