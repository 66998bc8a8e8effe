import type { Check } from './checks.ts';
import { AUDIT_THRESHOLDS as T } from './thresholds.ts';

/** Checks of limits and lifetimes an operator can loosen: each names the setting and its threshold. */
export const LIMIT_CHECKS: readonly Check[] = [
  {
    id: 'rate-limit-weak',
    severity: 'low',
    title: 'Authentication limits are loose',
    test: (s) => {
      // Off is the loosest of all: this finding stands beside rate-limit-off, so the score never rises.
      if (s.rateLimits === false) return 'RATE_LIMIT=0: no limit on failed authentications at all.';
      const r = s.rateLimits;
      const weak = [
        r.failures > T.failures ? `RATE_LIMIT_FAILURES=${r.failures} (above ${T.failures})` : null,
        r.failureWindowSeconds < T.failureWindowSeconds
          ? `RATE_LIMIT_FAILURE_WINDOW_SECONDS=${r.failureWindowSeconds} (below ${T.failureWindowSeconds})`
          : null,
        r.authPerMinute > T.authPerMinute
          ? `RATE_LIMIT_AUTH_PER_MINUTE=${r.authPerMinute} (above ${T.authPerMinute})`
          : null,
        (r.webhookPerMinute ?? 0) > T.webhookPerMinute
          ? `RATE_LIMIT_WEBHOOK_PER_MINUTE=${r.webhookPerMinute} (above ${T.webhookPerMinute})`
          : null,
      ].filter((x): x is string => x !== null);
      return weak.length ? `${weak.join(', ')}: guessing and hammering are cut off late.` : null;
    },
    recommendation:
      'Keep the rate limits near their defaults (20 failures per 600 s, 30 auth calls per minute).',
    fix: () => ({
      steps: [
        'Unset RATE_LIMIT_FAILURES, RATE_LIMIT_FAILURE_WINDOW_SECONDS, RATE_LIMIT_AUTH_PER_MINUTE and RATE_LIMIT_WEBHOOK_PER_MINUTE, or set them within the thresholds on docs/reference/configuration.md.',
      ],
      variables: [
        { name: 'RATE_LIMIT_FAILURES', value: '20' },
        { name: 'RATE_LIMIT_FAILURE_WINDOW_SECONDS', value: '600' },
      ],
    }),
  },
  {
    id: 'pairing-code-long-lived',
    severity: 'low',
    title: 'Pairing codes live long',
    test: (s) =>
      s.pairing.codeTtlSeconds > T.codeTtlSeconds
        ? `PAIRING_CODE_TTL_SECONDS=${s.pairing.codeTtlSeconds} (above ${T.codeTtlSeconds}): a code seen over a shoulder or in a screenshot mints a device key for that long.`
        : null,
    recommendation: 'Keep pairing codes short-lived (default 900 s).',
    fix: () => ({
      steps: ['Unset PAIRING_CODE_TTL_SECONDS or set it to at most 3600.'],
      variables: [{ name: 'PAIRING_CODE_TTL_SECONDS', value: '900' }],
    }),
  },
  {
    id: 'token-long-lived',
    severity: 'low',
    title: 'Bearer tokens live long',
    test: (s) =>
      s.jwtTtlSeconds != null && s.jwtTtlSeconds > T.jwtTtlSeconds
        ? `JWT_TTL_SECONDS=${s.jwtTtlSeconds} (above ${T.jwtTtlSeconds}): a stolen token works that long (a revoked key's tokens die at once).`
        : null,
    recommendation: 'Keep issued tokens short-lived (default 900 s).',
    fix: () => ({
      steps: ['Unset JWT_TTL_SECONDS or set it to at most 3600.'],
      variables: [{ name: 'JWT_TTL_SECONDS', value: '900' }],
    }),
  },
  {
    id: 'timeouts-long',
    severity: 'low',
    title: 'Slow clients may hold connections long',
    test: (s) => {
      const t = s.timeouts;
      if (!t) return null;
      const long = [
        t.headersMs > T.headersMs ? `HEADERS_TIMEOUT_MS=${t.headersMs} (above ${T.headersMs})` : null,
        t.requestMs > T.requestMs ? `REQUEST_TIMEOUT_MS=${t.requestMs} (above ${T.requestMs})` : null,
        t.keepAliveMs > T.keepAliveMs
          ? `KEEP_ALIVE_TIMEOUT_MS=${t.keepAliveMs} (above ${T.keepAliveMs})`
          : null,
      ].filter((x): x is string => x !== null);
      return long.length ? `${long.join(', ')}: a few slow clients can use up the server's sockets.` : null;
    },
    recommendation:
      'Keep the socket time-outs near their defaults (20 s headers, 120 s request, 5 s keep-alive).',
    fix: () => ({
      steps: ['Unset HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS, or lower them.'],
      variables: [{ name: 'HEADERS_TIMEOUT_MS', value: '20000' }],
    }),
  },
  {
    id: 'egress-private-allowed',
    severity: 'low',
    title: 'Outbound requests may reach private addresses',
    test: (s) =>
      s.egressAllow?.length
        ? `EGRESS_ALLOW lets plugins and channels call ${s.egressAllow.slice(0, 3).join(', ')}${s.egressAllow.length > 3 ? ' and more' : ''} although private or loopback.`
        : null,
    recommendation: 'Allow only the internal destinations you need in EGRESS_ALLOW, by host and port.',
    fix: () => ({ steps: ['Remove entries from EGRESS_ALLOW that no plugin or channel needs.'] }),
  },
];
