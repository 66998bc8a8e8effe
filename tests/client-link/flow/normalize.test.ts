import { describe, expect, it } from 'vitest';
import { isLocalHost, normalizeServerUrl, UrlProblem } from '../../../client-link/src/flow/normalize.ts';

describe('step 4: normalize', () => {
  it.each([
    ['notes.example.com', 'https://notes.example.com'],
    ['  https://notes.example.com/  ', 'https://notes.example.com'],
    ['https://Notes.Example.com:8443/base//?q=1#frag', 'https://notes.example.com:8443/base'],
    ['https://relay.example/r/srv_AbC-1/', 'https://relay.example/r/srv_AbC-1'],
    ['https://notes.example/api/v1/', 'https://notes.example'],
    ['http://127.0.0.1:3000/', 'http://127.0.0.1:3000'],
    ['http://localhost:8787/r/srv_x', 'http://localhost:8787/r/srv_x'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['http://192.168.1.20:3000', 'http://192.168.1.20:3000'],
    ['http://10.1.2.3', 'http://10.1.2.3'],
    ['http://172.20.0.4:3000', 'http://172.20.0.4:3000'],
    ['http://nas.local:3000', 'http://nas.local:3000'],
    ['192.168.1.20:3000', 'https://192.168.1.20:3000'],
  ])('%s -> %s', (raw, want) => {
    expect(normalizeServerUrl(raw)).toBe(want);
  });
  it.each([
    ['', /empty/],
    [
      'http://notes.example.com',
      /only allowed for this machine or your local network; use https:\/\/notes.example.com/,
    ],
    ['http://172.32.0.1', /only allowed/],
    ['http://8.8.8.8', /only allowed/],
    ['ftp://notes.example.com', /must start with https/],
    ['javascript:alert(1)', /not a valid URL|must start with https/],
    ['https://user:pw@notes.example.com', /user name or password/],
    ['https://exa mple.com', /spaces/],
    ['https://', /not a valid URL/],
  ])('refuses %j', (raw, message) => {
    expect(() => normalizeServerUrl(raw)).toThrow(UrlProblem);
    expect(() => normalizeServerUrl(raw)).toThrow(message);
  });
  it('knows local hosts', () => {
    for (const h of [
      'localhost',
      'a.localhost',
      '127.8.0.1',
      '169.254.1.1',
      '[fd12::1]',
      'fe80::1',
      'pi.local',
    ])
      expect(isLocalHost(h), h).toBe(true);
    for (const h of ['example.com', '11.0.0.1', '192.169.0.1', 'local.example.com', '2001:db8::1'])
      expect(isLocalHost(h), h).toBe(false);
  });
});
