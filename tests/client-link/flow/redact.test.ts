import { describe, expect, it } from 'vitest';
import { redact, redactKey } from '../../../client-link/src/flow/redact.ts';

const KEY = `quire_sk_${'A1b2C3d4'.repeat(6)}`;

describe('redaction', () => {
  it('redacts keys, pairing codes, secret parameters and named secrets', () => {
    const text = `key ${KEY} code 7KQ2M-XW9PA url https://x/link?apiKey=abc&relayCode=def&ok=1 named hunter22`;
    const out = redact(text, ['hunter22']);
    expect(out).not.toContain(KEY);
    expect(out).toContain(redactKey(KEY));
    expect(out).not.toContain('7KQ2M-XW9PA');
    expect(out).toContain('apiKey=[redacted]&relayCode=[redacted]&ok=1');
    expect(out).not.toContain('hunter22');
  });
  it('shows at most the last four characters of a key', () => {
    expect(redactKey(KEY)).toBe(`quire_sk_…${KEY.slice(-4)}`);
    expect(redactKey('something-else')).toBe('…');
  });
});
