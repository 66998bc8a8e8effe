import { ConfigError, type Env, readVariables, withPrefix } from './read.ts';
import { SERVER_VARIABLES } from './variables.ts';

/** The semantic search provider from EMBEDDINGS_* (docs/reference/search.md, "Semantic search"). */
export interface EmbeddingsConfig {
  url: string;
  model: string;
  /** Never logged or answered. */
  apiKey: string | null;
}

/** Reads EMBEDDINGS_*: null when EMBEDDINGS_URL is unset; throws ConfigError naming the variable. */
export function loadEmbeddingsConfig(env: Env): EmbeddingsConfig | null {
  const vars = readVariables(SERVER_VARIABLES, env, withPrefix(SERVER_VARIABLES, 'EMBEDDINGS_'));
  const [url, model] = [vars.EMBEDDINGS_URL, vars.EMBEDDINGS_MODEL];
  const apiKey = vars.EMBEDDINGS_API_KEY ?? null;
  if (!url) {
    if (model || apiKey) {
      throw new ConfigError(
        'EMBEDDINGS_MODEL and EMBEDDINGS_API_KEY need EMBEDDINGS_URL (e.g. http://localhost:11434 for Ollama).',
      );
    }
    return null;
  }
  if (!model) {
    throw new ConfigError('EMBEDDINGS_URL needs EMBEDDINGS_MODEL (e.g. nomic-embed-text for Ollama).');
  }
  return { url, model, apiKey };
}
