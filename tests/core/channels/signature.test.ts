import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hubSignatureValid } from '../../../core/channels/signature.ts';

describe('X-Hub-Signature-256', () => {
  it('accepts only the HMAC of the exact bytes under the app secret', async () => {
    const body = new TextEncoder().encode('{"a":1}');
    const good = `sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`;
    expect(await hubSignatureValid('s3cret', body, good)).toBe(true);
    expect(await hubSignatureValid('s3cret', body, good.toUpperCase().replace('SHA256', 'sha256'))).toBe(
      true,
    );
    expect(await hubSignatureValid('other', body, good)).toBe(false);
    expect(await hubSignatureValid('s3cret', new TextEncoder().encode('{"a":2}'), good)).toBe(false);
    expect(await hubSignatureValid('s3cret', body, undefined)).toBe(false);
    expect(await hubSignatureValid('s3cret', body, good.slice(7))).toBe(false);
  });
});
