/**
 * Redaction for everything the client shows or logs: API keys, pairing codes and any URL
 * parameter that carries them. Applied to every diagnostic, so a key can never reach the
 * console, an error message or the page by accident.
 */

const KEY_RE = /quire_sk_[A-Za-z0-9_-]+/g;
const CODE_RE = /\b[2-9A-HJ-NP-Z]{5}-[2-9A-HJ-NP-Z]{5}\b/g;
const PARAM_RE = /([?&](?:apiKey|relayCode|key|secret|token)=)[^&#\s]*/gi;

/** The redacted form of a key: its prefix and at most the last 4 characters. */
export function redactKey(key: string): string {
  if (!key.startsWith('quire_sk_')) return '…';
  return `quire_sk_…${key.slice(-4)}`;
}

/** `text` with every key, pairing code and secret-bearing URL parameter redacted, and `secrets` removed. */
export function redact(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out
    .replace(PARAM_RE, '$1[redacted]')
    .replace(KEY_RE, (k) => redactKey(k))
    .replace(CODE_RE, '[code]');
}
