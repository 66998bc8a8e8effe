import { describe, expect, it } from 'vitest';
import {
  LinkProblem,
  parseLinkQuery,
  strippedUrl,
  validateCredentials,
} from '../../../client-link/src/flow/parse.ts';

const KEY = `quire_sk_${'A1b2C3d4'.repeat(6)}`;

describe('step 1: parse', () => {
  it('reads a direct link', () => {
    expect(parseLinkQuery(`?serverUrl=https%3A%2F%2Fnotes.example&apiKey=${KEY}`)).toEqual({
      mode: 'direct',
      serverUrl: 'https://notes.example',
      apiKey: KEY,
    });
  });
  it('reads a relay link with and without relayUrl; relay wins over direct parameters', () => {
    expect(parseLinkQuery('?relayCode=7KQ2M-XW9PA&relayUrl=https://relay.example')).toEqual({
      mode: 'relay',
      relayCode: '7KQ2M-XW9PA',
      relayUrl: 'https://relay.example',
    });
    expect(parseLinkQuery('?relayCode=7KQ2M-XW9PA')).toEqual({
      mode: 'relay',
      relayCode: '7KQ2M-XW9PA',
      relayUrl: null,
    });
    expect(parseLinkQuery(`?relayCode=7KQ2M-XW9PA&serverUrl=x&apiKey=${KEY}`).mode).toBe('relay');
  });
  it.each([
    ['', 'MISSING_PARAMS', /no server address and key/],
    [`?apiKey=${KEY}`, 'MISSING_PARAMS', /no server address/],
    ['?serverUrl=https://a.example', 'MISSING_PARAMS', /no API key/],
    ['?serverUrl=%20&apiKey=%20', 'MISSING_PARAMS', /no server address and key/],
    ['?relayCode=%3Cscript%3E', 'MALFORMED_PARAMS', /pairing code .* malformed/],
    ['?relayCode=ab', 'MALFORMED_PARAMS', /malformed/],
  ])('refuses %j with %s', (query, code, message) => {
    let caught: unknown;
    try {
      parseLinkQuery(query);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(LinkProblem);
    expect((caught as LinkProblem).code).toBe(code);
    expect((caught as LinkProblem).message).toMatch(message);
    expect((caught as LinkProblem).message).not.toContain(KEY);
  });
  it('strips every link parameter from the address and keeps the rest', () => {
    expect(strippedUrl(`http://h:1/link?relayCode=C&x=1&apiKey=${KEY}&relayUrl=r&serverUrl=s#top`)).toBe(
      '/link?x=1#top',
    );
    expect(strippedUrl(`http://h:1/link?apiKey=${KEY}`)).toBe('/link');
  });
});

describe('step 3: validate', () => {
  it('accepts a key of the right shape', () => {
    expect(() => validateCredentials('https://a.example', KEY)).not.toThrow();
  });
  it.each([['quire_sk_short'], ['sk-ant-0123456789012345678901234567890123'], [`${KEY} extra`], ['']])(
    'refuses the key %j without echoing it',
    (key) => {
      let caught: unknown;
      try {
        validateCredentials('https://a.example', key);
      } catch (e) {
        caught = e;
      }
      expect((caught as LinkProblem).code).toBe('MALFORMED_PARAMS');
      if (key) expect((caught as Error).message).not.toContain(key);
    },
  );
  it('refuses an empty server address', () => {
    expect(() => validateCredentials('  ', KEY)).toThrow(/server address is missing/);
  });
});
