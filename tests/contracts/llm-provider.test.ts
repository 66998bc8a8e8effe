import { localProvider } from '../../core/index.ts';
import { type Answer, dialect as dialectOf, rulesModel, startFakeLlm } from '../helpers/fake-llm.ts';
import { closedPortUrl } from '../helpers/ports.ts';
import { LLM_CASES as C, type LlmProviderFixture, runLlmProviderContract } from './llm-provider.contract.ts';

const KEY = 'sk-test-0123456789abcdef';

/** A remote provider against a loopback server speaking its API and playing `rulesModel`. */
async function remote(dialect: 'openai' | 'anthropic'): Promise<LlmProviderFixture> {
  const d = dialectOf(dialect);
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
      const url = `${await closedPortUrl()}/v1`;
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
