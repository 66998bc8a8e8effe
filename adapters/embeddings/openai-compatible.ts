/**
 * The embeddings port over any OpenAI-compatible `/v1/embeddings` endpoint: Ollama, llama.cpp's
 * server, vLLM, LM Studio, OpenAI and the like. Quire never downloads a model; it asks the one
 * the user runs.
 */
import type { Embeddings } from '../../core/ports.ts';

/** Settings of the OpenAI-compatible embeddings adapter (EMBEDDINGS_*). */
export interface OpenAiEmbeddingsOptions {
  /** EMBEDDINGS_URL: a server root, a `/v1` base, or the full `/v1/embeddings` address. */
  url: string;
  /** EMBEDDINGS_MODEL, e.g. `nomic-embed-text` (Ollama) or `text-embedding-3-small` (OpenAI). */
  model: string;
  /** EMBEDDINGS_API_KEY, sent as a bearer token; never logged or put into an error. */
  apiKey?: string | null;
  /** The HTTP client (the server's egress-checked fetch). */
  fetch?: typeof globalThis.fetch;
}

/**
 * The address requests go to: a URL whose path ends in `/embeddings` is used as given; one ending
 * in `/v1` gets `/embeddings`; any other gets `/v1/embeddings` (so `http://localhost:11434` works).
 */
export function embeddingsEndpoint(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '');
  if (/\/embeddings$/.test(path)) u.pathname = path;
  else if (/\/v1$/.test(path)) u.pathname = `${path}/embeddings`;
  else u.pathname = `${path}/v1/embeddings`;
  return u.toString();
}

/** The embeddings port over an OpenAI-compatible endpoint. */
export function openAiEmbeddings(opts: OpenAiEmbeddingsOptions): Embeddings {
  const endpoint = embeddingsEndpoint(opts.url);
  const where = new URL(endpoint).host;
  const doFetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const redact = (s: string) => (opts.apiKey ? s.split(opts.apiKey).join('[redacted]') : s);
  return {
    model: opts.model,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
      let res: Response;
      try {
        res = await doFetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model: opts.model, input: texts }),
          signal,
        });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new Error(redact(`${where} could not be reached (${why}).`));
      }
      const text = await res.text().catch(() => '');
      if (!res.ok) {
        let detail = text.slice(0, 200);
        try {
          const j = JSON.parse(text) as { error?: { message?: string } | string };
          detail = typeof j.error === 'string' ? j.error : (j.error?.message ?? detail);
        } catch {}
        throw new Error(redact(`${where} answered ${res.status}: ${detail.slice(0, 200)}`));
      }
      let body: { data?: { embedding?: unknown; index?: number }[] };
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`${where} answered something that is not JSON.`);
      }
      const data = Array.isArray(body.data) ? [...body.data] : [];
      data.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      const out = data.map((d) => d.embedding);
      const dims = Array.isArray(out[0]) ? out[0].length : 0;
      const valid = (v: unknown): v is number[] =>
        Array.isArray(v) && v.length === dims && v.every((x) => typeof x === 'number' && Number.isFinite(x));
      if (out.length !== texts.length || dims === 0 || !out.every(valid)) {
        throw new Error(
          `${where} answered ${out.length} embeddings for ${texts.length} texts, or malformed ones.`,
        );
      }
      return out as number[][];
    },
  };
}
