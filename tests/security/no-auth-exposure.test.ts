/**
 * Finding 3: SERVICE_AUTH_MODE=none must not start when any path lets another machine in (HOST,
 * the embedded relay's RELAY_HOST, a remote RELAY_URL, TRUST_PROXY), and the audit agrees.
 */
import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../core/security/audit.ts';
import { remoteReachPaths } from '../../core/security/exposure.ts';
import { ConfigError, loadConfig } from '../../deploy/shared/config/server.ts';
import { NOW, safeSnapshot } from './snapshots.ts';

const base = { SERVICE_AUTH_MODE: 'none', HOST: '127.0.0.1', DATA_DIR: '/tmp/quire-none' };

describe('finding 3: auth mode none and every way in', () => {
  it.each([
    [{ HOST: '0.0.0.0' }, /HOST=0\.0\.0\.0/],
    [{ RELAY_HOST: '0.0.0.0' }, /RELAY_HOST=0\.0\.0\.0/],
    [{ RELAY_URL: 'https://relay.example.com' }, /relay at https:\/\/relay\.example\.com/],
    [{ RELAY_PUBLIC_BASE_URL: 'https://relay.example.com' }, /relay \(RELAY_HOST=127\.0\.0\.1\)/],
    [
      { RELAY_URL: 'http://127.0.0.1:8787', RELAY_PUBLIC_BASE_URL: 'https://relay.example.com' },
      /relay at https:\/\/relay\.example\.com/,
    ],
    [{ RELAY_URL: 'http://127.0.0.1:8787' }, /relay at http:\/\/127\.0\.0\.1:8787/],
    [{ PAIRING_MODE: 'relay' }, /embedded relay \(RELAY_HOST=127\.0\.0\.1\)/],
    [{ TRUST_PROXY: '1' }, /TRUST_PROXY/],
  ])('refuses %o without ALLOW_INSECURE_NO_AUTH, naming the path', (env, named) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(named);
    expect(loadConfig({ ...base, ...env, ALLOW_INSECURE_NO_AUTH: '1' }).authMode).toBe('none');
  });

  it('starts on loopback only: with no pairing variable set, relay pairing is off and a notice says so', () => {
    const plain = loadConfig(base);
    expect(plain.authMode).toBe('none');
    expect(plain.pairingMode).toBe('open-port');
    expect(plain.startNotice).toMatch(/relay pairing is off/);
    expect(loadConfig({ ...base, PAIRING_MODE: 'open-port', RELAY_HOST: '0.0.0.0' }).authMode).toBe('none');
    // The explicit opt-in keeps the default relay pairing (and says nothing).
    const insecure = loadConfig({ ...base, ALLOW_INSECURE_NO_AUTH: '1' });
    expect(insecure.pairingMode).toBe('relay');
    expect(insecure.startNotice).toBeUndefined();
    // Other modes keep relay pairing by default.
    expect(loadConfig({ ...base, SERVICE_AUTH_MODE: 'api-key' }).pairingMode).toBe('relay');
  });

  it('the audit names the same paths as the start refusal', () => {
    const s = safeSnapshot();
    s.authMode = 'none';
    s.host = '127.0.0.1';
    s.pairing = { mode: 'relay', relayUrl: null, embeddedRelayHost: '0.0.0.0', codeTtlSeconds: 900 };
    const paths = remoteReachPaths({
      host: s.host,
      pairingMode: 'relay',
      relayUrl: null,
      embeddedRelayHost: '0.0.0.0',
      trustProxy: false,
    });
    expect(paths).toHaveLength(1);
    const finding = findingsOf(s, NOW).find((f) => f.id === 'auth-disabled')!;
    expect(finding.description).toContain(paths[0]);
  });

  it.each([
    ['a loopback embedded relay', { relayUrl: 'http://127.0.0.1:8787', embeddedRelayHost: '127.0.0.1' }],
    ['a loopback RELAY_URL', { relayUrl: 'http://127.0.0.1:8787', embeddedRelayHost: null }],
    ['a public base URL', { relayUrl: 'https://relay.example.com', embeddedRelayHost: '127.0.0.1' }],
  ])('the start check and the audit agree on %s: reachable, and the same sentence', (_, pairing) => {
    const s = safeSnapshot();
    s.authMode = 'none';
    s.host = '127.0.0.1';
    s.trustProxy = false;
    s.pairing = { mode: 'relay', codeTtlSeconds: 900, ...pairing };
    const paths = remoteReachPaths({ host: s.host, pairingMode: 'relay', trustProxy: false, ...pairing });
    expect(paths).toHaveLength(1);
    const finding = findingsOf(s, NOW).find((f) => f.id === 'auth-disabled')!;
    expect(finding.description).toContain(`Reachable from other machines: ${paths[0]}`);
  });
});
