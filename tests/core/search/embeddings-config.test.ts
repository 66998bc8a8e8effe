import { afterEach, describe, expect, it } from 'vitest';
import { loadEmbeddingsConfig } from '../../../deploy/shared/config/embeddings.ts';
import { ConfigError, loadConfig } from '../../../deploy/shared/config/server.ts';
import { requester } from '../../helpers/app.ts';
import { startFakeEmbeddings } from '../../helpers/fake-embeddings.ts';
import { composedApp } from '../../openapi/compose.ts';
import { HELP_VAULT } from './semantic-fixtures.ts';

describe('EMBEDDINGS_* config', () => {
  it('is off by default and reads a URL with its model and key', () => {
    expect(loadConfig({}, '/srv').embeddings).toBeNull();
    expect(
      loadEmbeddingsConfig({
        EMBEDDINGS_URL: 'http://localhost:11434',
        EMBEDDINGS_MODEL: 'nomic-embed-text',
        EMBEDDINGS_API_KEY: 'k1',
      }),
    ).toEqual({ url: 'http://localhost:11434', model: 'nomic-embed-text', apiKey: 'k1' });
  });

  it.each([
    [{ EMBEDDINGS_URL: 'http://localhost:11434' }, /EMBEDDINGS_URL needs EMBEDDINGS_MODEL/],
    [{ EMBEDDINGS_MODEL: 'm' }, /need EMBEDDINGS_URL/],
    [{ EMBEDDINGS_URL: 'not a url', EMBEDDINGS_MODEL: 'm' }, /EMBEDDINGS_URL/],
  ])('stops the start with one line naming the variable: %j', (env, message) => {
    expect(() => loadConfig(env, '/srv')).toThrow(ConfigError);
    expect(() => loadConfig(env, '/srv')).toThrow(message);
  });
});

describe('the composed server with EMBEDDINGS_URL', () => {
  let close = async () => {};
  afterEach(async () => {
    await close();
  });

  it('embeds through the egress check (the operator named the host), searches hybrid, reports health', async () => {
    const fake = await startFakeEmbeddings({ apiKey: 'sk-emb-secret' });
    const c = await composedApp(HELP_VAULT, {
      SERVICE_AUTH_MODE: 'none',
      EMBEDDINGS_URL: fake.url,
      EMBEDDINGS_MODEL: 'fake-bow',
      EMBEDDINGS_API_KEY: 'sk-emb-secret',
    });
    close = async () => {
      c.core.semantic?.stop();
      await fake.close();
    };
    await c.core.semantic!.sync();
    expect(c.core.semantic!.status()).toMatchObject({ state: 'ready' });
    expect(fake.state.auth.every((a) => a === 'Bearer sk-emb-secret')).toBe(true);
    const call = requester(c.app);
    const r = await call('GET', '/api/v1/search?q=embed%20a%20pdf');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-search-mode')).toBe('hybrid');
    expect(r.json.data[0]).toMatchObject({ heading: 'Embed a PDF in a note' });
    const health = await call('GET', '/api/v1/health');
    expect(health.json.data.embeddings.state).toBe('ready');
    expect(health.text).not.toContain('sk-emb-secret');
  });
});
