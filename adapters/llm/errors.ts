import { APICallError } from 'ai';
import { DomainError, isDomainError } from '../../core/errors.ts';

/** Removes `secret` (and anything that looks like an API key) from a text meant for people. */
export function redact(text: string, secret: string | undefined): string {
  let out = text;
  if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out.replace(/\b(sk|key|api)[-_][A-Za-z0-9_*-]{6,}/gi, '[redacted]');
}

const hintFor = (status: number): string => {
  if (status === 401 || status === 403) return 'check AGENT_API_KEY';
  if (status === 404) return 'check AGENT_MODEL and AGENT_BASE_URL (OpenAI-compatible addresses end in /v1)';
  if (status === 400 || status === 422) return 'check AGENT_MODEL and that the model supports tool calling';
  if (status === 429) return 'the provider is rate limiting or out of credit; try again later';
  return "the provider failed; try again, or check the provider's logs";
};

/** Finds a network error code (ECONNREFUSED, ENOTFOUND...) in an error's cause chain. */
function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+/.test(code)) return code;
  }
  return undefined;
}

/**
 * Turns whatever the AI SDK threw into `AGENT_PROVIDER_ERROR` with a message that says what to
 * fix. Never includes the API key. Aborts are rethrown as they are (the core words time-outs).
 */
export function providerError(err: unknown, p: { name: string; baseURL: string; apiKey?: string }): unknown {
  if (isDomainError(err)) return err;
  if ((err as Error)?.name === 'AbortError' || (err as Error)?.name === 'TimeoutError') return err;
  const where = `the ${p.name} provider at ${p.baseURL}`;
  if (APICallError.isInstance(err) && err.statusCode !== undefined) {
    const said = redact(err.message, p.apiKey).slice(0, 300);
    return new DomainError(
      'AGENT_PROVIDER_ERROR',
      `${where} answered ${err.statusCode} (${said}); ${hintFor(err.statusCode)}.`,
    );
  }
  const code = networkCode(err);
  if (code || APICallError.isInstance(err)) {
    return new DomainError(
      'AGENT_PROVIDER_ERROR',
      `Could not reach ${where}${code ? ` (${code})` : ''}; check AGENT_BASE_URL and that the server is running.`,
    );
  }
  const said = redact(err instanceof Error ? err.message : String(err), p.apiKey).slice(0, 300);
  return new DomainError('AGENT_PROVIDER_ERROR', `${where} gave an answer Quire could not use (${said}).`);
}
