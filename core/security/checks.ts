import { hostOf, isLoopbackHost } from '../net/hosts.ts';
import { remoteReachPaths } from './exposure.ts';
import type { SecuritySnapshot, Severity } from './types.ts';

/** One audit check: a pure function of the snapshot and the time. */
export interface Check {
  id: string;
  severity: Severity;
  title: string;
  /** The finding's description when the check fails, else null. */
  test(s: SecuritySnapshot, now: number): string | null;
  recommendation: string;
  /** Concrete steps and variables for the recommendations endpoint. */
  fix(s: SecuritySnapshot): { steps: string[]; variables?: { name: string; value: string }[] };
}

const DAY_MS = 86_400_000;

export const isHttps = (url: string | null): boolean => !!url && url.startsWith('https:');
const plainRemote = (url: string) => url.startsWith('http:') && !isLoopbackHost(hostOf(url) ?? '');
const tlsDeclared = (s: SecuritySnapshot) => s.tlsTerminatedByProxy || isHttps(s.publicUrl);
const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
export const ageDays = (iso: string, now: number) => (now - Date.parse(iso)) / DAY_MS;
/** Up to three names, then a count. */
export const list = (xs: string[]) =>
  xs.length > 3 ? `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more` : xs.join(', ');

/** Checks of exposure: authentication, transport, state files, CORS, limits, proxies, channels. */
export const EXPOSURE_CHECKS: readonly Check[] = [
  {
    id: 'auth-disabled',
    severity: 'critical',
    title: 'Authentication is off',
    test: (s) => {
      if (s.authMode !== 'none') return null;
      const paths = remoteReachPaths({
        host: s.host,
        pairingMode: s.pairing.mode,
        relayUrl: s.pairing.relayUrl,
        embeddedRelayHost: s.pairing.embeddedRelayHost,
        trustProxy: s.trustProxy,
      });
      const how = paths.length ? ` Reachable from other machines: ${paths.join('; ')}.` : '';
      return `SERVICE_AUTH_MODE=none: anyone who reaches ${s.host} can read, change and delete every note.${how}`;
    },
    recommendation: 'Set SERVICE_AUTH_MODE=api-key (the default).',
    fix: () => ({
      steps: [
        'Set SERVICE_AUTH_MODE=api-key and restart.',
        'Link a client with the key from GET /api/v1/system/setup.',
      ],
      variables: [{ name: 'SERVICE_AUTH_MODE', value: 'api-key' }],
    }),
  },
  {
    id: 'setup-key-exposed',
    severity: 'high',
    title: 'The first API key is shown on the public setup endpoint',
    test: (s) =>
      !s.setup.complete && s.setup.firstKeyExposed
        ? 'Setup is not complete, so GET /api/v1/system/setup (public, also through the relay) shows the full first key to anyone who asks.'
        : null,
    recommendation: 'Link a client now: the key is then redacted and erased from disk.',
    fix: () => ({
      steps: [
        'Open a connect link from GET /api/v1/system/setup on your device (it calls POST /api/v1/auth/link).',
        'Or call POST /api/v1/auth/link with the key in X-Service-Key yourself.',
      ],
    }),
  },
  {
    id: 'plain-http-public',
    severity: 'high',
    title: 'Plain HTTP on a public address',
    test: (s) =>
      !isLoopbackHost(s.host) && !tlsDeclared(s)
        ? `HOST=${s.host} accepts connections from other machines over plain HTTP, and no TLS-terminating proxy is declared: keys and notes cross the network readable.`
        : null,
    recommendation:
      'Put a TLS proxy in front and declare it (TLS_TERMINATED_BY_PROXY=1, PUBLIC_URL=https://…), or listen on 127.0.0.1.',
    fix: () => ({
      steps: [
        'Run a reverse proxy with HTTPS (Caddy, nginx, Traefik) in front of the server.',
        'Declare it: TLS_TERMINATED_BY_PROXY=1 and PUBLIC_URL=https://<your host>.',
        'Or, without a proxy, set HOST=127.0.0.1 and reach the server through the relay.',
      ],
      variables: [
        { name: 'TLS_TERMINATED_BY_PROXY', value: '1' },
        { name: 'PUBLIC_URL', value: 'https://notes.example.com' },
      ],
    }),
  },
  {
    id: 'relay-plain-http',
    severity: 'high',
    title: 'The relay is reached over plain HTTP',
    test: (s) => {
      if (s.pairing.mode !== 'relay') return null;
      const url = s.pairing.relayUrl;
      if (url && plainRemote(url))
        return `The relay address ${url} is plain HTTP to another host: pairing codes, keys and notes cross the network readable.`;
      const embedded = s.pairing.embeddedRelayHost;
      if (embedded && !isLoopbackHost(embedded) && !isHttps(url) && !s.tlsTerminatedByProxy)
        return `The relay in this process listens on ${embedded} over plain HTTP without a TLS proxy declared.`;
      return null;
    },
    recommendation: 'Use an https:// relay (RELAY_URL, or RELAY_PUBLIC_BASE_URL behind a TLS proxy).',
    fix: () => ({
      steps: [
        'Point RELAY_URL at an https:// relay, or put the embedded relay behind a TLS proxy and set RELAY_PUBLIC_BASE_URL=https://….',
        'Or keep the relay on loopback: RELAY_HOST=127.0.0.1.',
      ],
      variables: [{ name: 'RELAY_PUBLIC_BASE_URL', value: 'https://relay.example.com' }],
    }),
  },
  {
    id: 'state-files-readable',
    severity: 'high',
    title: 'Server state is readable by other users',
    test: (s) => {
      const bad = s.stateFiles.filter((f) => (f.mode & (f.dir ? 0o022 : 0o077)) !== 0);
      return bad.length
        ? `In DATA_DIR, ${list(bad.map((f) => `${f.name} (${octal(f.mode)})`))} can be read or changed by other users of this machine; credentials.json holds key hashes and the relay secret.`
        : null;
    },
    recommendation: 'chmod 600 the files in DATA_DIR and chmod 700 DATA_DIR itself.',
    fix: () => ({ steps: ['chmod 700 "$DATA_DIR"', 'chmod 600 "$DATA_DIR"/*.json'] }),
  },
  {
    id: 'cors-any-origin',
    severity: 'high',
    title: 'CORS allows any origin',
    test: (s) =>
      s.corsOrigins.some((o) => o === '*' || o === 'null')
        ? `CORS_ORIGINS contains ${s.corsOrigins.includes('*') ? '"*"' : '"null"'}: any web page a user opens may call this server.`
        : null,
    recommendation: 'List exact client origins in CORS_ORIGINS.',
    fix: () => ({
      steps: ['Set CORS_ORIGINS to the exact origins of your clients, comma-separated.'],
      variables: [{ name: 'CORS_ORIGINS', value: 'https://app.example.com' }],
    }),
  },
  {
    id: 'rate-limit-off',
    severity: 'medium',
    title: 'Rate limiting is off',
    test: (s) =>
      s.rateLimits === false
        ? 'RATE_LIMIT=0: keys can be guessed and auth endpoints hammered without limit.'
        : null,
    recommendation: 'Remove RATE_LIMIT=0 (limits are on by default).',
    fix: () => ({
      steps: ['Unset RATE_LIMIT or set RATE_LIMIT=1 and restart.'],
      variables: [{ name: 'RATE_LIMIT', value: '1' }],
    }),
  },
  {
    id: 'trust-proxy-public',
    severity: 'medium',
    title: 'X-Forwarded-* headers are believed on a public address',
    test: (s) =>
      s.trustProxy && !isLoopbackHost(s.host)
        ? `TRUST_PROXY is on while HOST=${s.host} is reachable directly: a client can forge X-Forwarded-For to dodge rate limits and X-Forwarded-Host to change links.`
        : null,
    recommendation: 'Listen on 127.0.0.1 behind your proxy, or set TRUST_PROXY=0.',
    fix: () => ({
      steps: [
        'Bind the server to loopback (HOST=127.0.0.1) so only your proxy reaches it, or turn TRUST_PROXY off.',
      ],
      variables: [{ name: 'HOST', value: '127.0.0.1' }],
    }),
  },
  {
    id: 'channel-no-signature',
    severity: 'medium',
    title: 'Channels accept webhooks without the provider signature',
    test: (s) => {
      const bad = s.channels.filter((c) => c.enabled && !c.signatureCheck);
      return bad.length
        ? `Enabled channels ${list(bad.map((c) => `${c.id} (${c.provider})`))} check only the shared secret, not the provider's own signature.`
        : null;
    },
    recommendation: "Configure each channel's provider secret (Telegram secret token, WhatsApp app secret).",
    fix: () => ({
      steps: [
        "Set the provider's signing secret on each listed channel (Telegram: the secret token of setWebhook; WhatsApp: the app secret).",
        'Or disable the channel: POST /api/v1/channels/:id/toggle.',
      ],
    }),
  },
];
