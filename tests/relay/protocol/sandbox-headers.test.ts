import { describe, expect, it } from 'vitest';
import { proxiedHeaders, RELAY_FORMS_CSP, RELAY_SANDBOX_CSP } from '../../../relay/protocol/http-codec.ts';

const csp = (type: string, path?: string) =>
  proxiedHeaders([['content-type', type]], path).find(([k]) => k === 'content-security-policy')?.[1];

describe('the relay sandbox on proxied answers', () => {
  it('sandboxes active content fully, except the OAuth consent page, which may submit its form', () => {
    expect(csp('text/html; charset=utf-8', '/link')).toBe(RELAY_SANDBOX_CSP);
    expect(csp('text/html', '/oauth/authorize?client_id=x&state=y')).toBe(RELAY_FORMS_CSP);
    expect(csp('text/html', '/oauth/authorize')).toBe(RELAY_FORMS_CSP);
    // Only that exact path: a look-alike or a page below it gets the full sandbox.
    expect(csp('text/html', '/oauth/authorizer')).toBe(RELAY_SANDBOX_CSP);
    expect(csp('text/html', '/oauth/authorize/x')).toBe(RELAY_SANDBOX_CSP);
    expect(csp('text/html', '/api/v1/files/oauth/authorize')).toBe(RELAY_SANDBOX_CSP);
    expect(csp('image/svg+xml')).toBe(RELAY_SANDBOX_CSP);
    // A published page may submit its search form; its attachments and other paths may not.
    expect(csp('text/html', '/p/pub_abc-_1/')).toBe(RELAY_FORMS_CSP);
    expect(csp('text/html', '/p/pub_abc/Notes/a.md')).toBe(RELAY_FORMS_CSP);
    expect(csp('text/html', '/p/pub_abc/_files/0123/x.html')).toBe(RELAY_SANDBOX_CSP);
    expect(csp('text/html', '/p/pub_abc')).toBe(RELAY_SANDBOX_CSP);
    expect(csp('text/html', '/api/v1/p/pub_abc/')).toBe(RELAY_SANDBOX_CSP);
    // Still an opaque origin without script: allow-forms is the only token added.
    expect(RELAY_FORMS_CSP.split(' ')).toEqual(['sandbox', 'allow-forms']);
    expect(csp('application/json', '/oauth/authorize')).toBeUndefined();
  });
});
