import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { embeddingsEndpoint, openAiEmbeddings } from '../../../adapters/embeddings/openai-compatible.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { SEMANTIC_KEY } from '../../../core/search/semantic/store.ts';
import { startFakeEmbeddings } from '../../helpers/fake-embeddings.ts';
import { HELP_VAULT, semanticVault } from './semantic-fixtures.ts';

let fake: Awaited<ReturnType<typeof startFakeEmbeddings>>;
const stops: (() => void)[] = [];
beforeEach(async () => {
  fake = await startFakeEmbeddings();
});
afterEach(async () => {
  for (const s of stops.splice(0)) s();
  await fake.close();
});

async function ready(opts: Parameters<typeof semanticVault>[1] = {}) {
  const v = await semanticVault(fake.url, opts);
  stops.push(() => v.semantic.stop());
  await v.semantic.start();
  await v.semantic.sync();
  return v;
}

describe('the embeddings adapter', () => {
  it('posts to /v1/embeddings under a root, a /v1 base, or the full address', () => {
    expect(embeddingsEndpoint('http://localhost:11434')).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsEndpoint('http://h:1/v1/')).toBe('http://h:1/v1/embeddings');
    expect(embeddingsEndpoint('https://h/api/v1/embeddings')).toBe('https://h/api/v1/embeddings');
  });

  it('sends the key as a bearer token and never puts it into an error', async () => {
    const keyed = await startFakeEmbeddings({ apiKey: 'sk-secret-123' });
    try {
      const good = openAiEmbeddings({ url: keyed.url, model: 'm', apiKey: 'sk-secret-123' });
      expect((await good.embed(['a b']))[0]).toHaveLength(256);
      const bad = openAiEmbeddings({ url: keyed.url, model: 'm', apiKey: 'sk-wrong-456' });
      const err = await bad.embed(['x']).catch((e: Error) => e);
      expect(String(err)).toMatch(/answered 401/);
      expect(String(err)).not.toContain('sk-wrong-456');
    } finally {
      await keyed.close();
    }
  });
});

describe('semantic index against a fake OpenAI-compatible server', () => {
  it('embeds every passage in the background and reports progress', async () => {
    const { semantic } = await ready();
    const s = semantic.status();
    expect(s).toMatchObject({ state: 'ready', model: 'fake-bow' });
    expect(s.total).toBeGreaterThanOrEqual(9);
    expect(s.done).toBe(s.total);
    expect(fake.state.inputs.length).toBe(s.total);
    expect(fake.state.inputs.some((t) => t.startsWith('Embed files › Embed a PDF in a note\n'))).toBe(true);
  });

  it('finds the passage by meaning and names its heading', async () => {
    const { retrieval } = await ready();
    const r = await retrieval.search('how do I embed a pdf', { mode: 'semantic', limit: 3 });
    expect(r.mode).toBe('semantic');
    expect(r.hits[0]).toMatchObject({
      path: 'Linking notes and files/Embed files.md',
      heading: 'Embed a PDF in a note',
    });
    expect(r.hits[0]!.snippet).toContain('Document.pdf');
  });

  it('re-embeds only the passage an edit changed, and nothing after a restart', async () => {
    const state = memoryStateStore();
    const { notes, semantic } = await ready({ state });
    const before = fake.state.inputs.length;
    const note = await notes.get('Linking notes and files/Embed files.md');
    const edited = note.content.replace('play inline', 'play inline with controls');
    await notes.update(note.path, { content: edited });
    await semantic.sync();
    const fresh = fake.state.inputs.slice(before);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toContain('play inline with controls');
    expect(await state.get(SEMANTIC_KEY)).toContain('"model":"fake-bow"');

    const after = fake.state.inputs.length;
    const again = await ready({ state, files: { ...HELP_VAULT, [note.path]: edited } });
    expect(again.semantic.status()).toMatchObject({ state: 'ready', done: semantic.status().total });
    expect(fake.state.inputs.length).toBe(after);
  });

  it('survives the provider being down: lexical and hybrid still answer, semantic says why', async () => {
    const { notes, semantic, retrieval } = await ready();
    fake.state.down = true;
    await notes.create('Plugins/Graph view.md', '# Graph view\n\nThe graph shows how your notes link.\n');
    await semantic.sync();
    expect(semantic.status()).toMatchObject({ state: 'error' });
    expect(semantic.status().error).toMatch(/503/);
    expect(semantic.status().done).toBeLessThan(semantic.status().total);
    const hybrid = await retrieval.search('graph', {});
    expect(hybrid.mode).toBe('lexical');
    expect(hybrid.hits[0]?.path).toBe('Plugins/Graph view.md');
    await expect(retrieval.search('graph', { mode: 'semantic' })).rejects.toMatchObject({
      code: 'EMBEDDINGS_ERROR',
    });
    fake.state.down = false;
    await semantic.sync();
    expect(semantic.status()).toMatchObject({ state: 'ready' });
    expect(semantic.status().done).toBe(semantic.status().total);
  });

  it('keeps lexical search when the provider cannot be reached at all', async () => {
    const { retrieval, semantic } = await ready();
    await fake.close();
    const r = await retrieval.search('canvas', { mode: 'hybrid' });
    expect(r.mode).toBe('lexical');
    expect(r.hits[0]?.path).toBe('Plugins/Canvas.md');
    expect(semantic.status().state).toBe('ready');
  });
});
