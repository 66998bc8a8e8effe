import { hostOf, isLoopbackHost } from '../net/hosts.ts';
import { ageDays, type Check, list } from './checks.ts';
import { AUDIT_THRESHOLDS } from './thresholds.ts';

/** Above this request body limit the audit calls it out. */
const MAX_SANE_BODY_BYTES = AUDIT_THRESHOLDS.maxBodyBytes;

/** Checks of key hygiene, limits, and where notes may travel (info). */
export const HYGIENE_CHECKS: readonly Check[] = [
  {
    id: 'password-only-accounts',
    severity: 'low',
    title: 'People sign in with a password only',
    test: (s) => {
      const only = (s.people ?? []).filter((p) => !p.disabled && p.password && p.passkeys === 0);
      return only.length
        ? `${list(only.map((p) => `${p.name} (${p.id})`))} can sign in with a password alone: a password can be phished or reused, a passkey cannot.`
        : null;
    },
    recommendation:
      'Ask each of them to add a passkey (signed in: /sign-in, or POST /api/v1/session/passkeys).',
    fix: () => ({
      steps: [
        'Each person, signed in, adds a passkey: POST /api/v1/session/passkeys/options, then /api/v1/session/passkeys.',
        'Or send a new invite (quire people invite <id>) and have them enrol a passkey with it.',
      ],
    }),
  },
  {
    id: 'cors-plain-http-origin',
    severity: 'low',
    title: 'CORS allows an origin served over plain HTTP',
    test: (s) => {
      const bad = s.corsOrigins.filter((o) => o.startsWith('http:') && !isLoopbackHost(hostOf(o) ?? ''));
      return bad.length
        ? `CORS_ORIGINS allows ${list(bad)}: anyone on that network path can inject a page that calls this server as that origin.`
        : null;
    },
    recommendation: 'Serve your clients over https and list their https:// origins in CORS_ORIGINS.',
    fix: () => ({
      steps: [
        'Replace each http:// origin in CORS_ORIGINS by its https:// form (loopback origins may stay).',
      ],
      variables: [{ name: 'CORS_ORIGINS', value: 'https://app.example.com' }],
    }),
  },
  {
    id: 'api-key-old',
    severity: 'low',
    title: 'API keys have not been rotated',
    test: (s, now) => {
      const old = s.keys.filter((k) => ageDays(k.createdAt, now) > s.policy.keyMaxAgeDays);
      return old.length
        ? `${list(old.map((k) => `"${k.name}" (${k.id})`))} ${old.length === 1 ? 'is' : 'are'} older than KEY_MAX_AGE_DAYS=${s.policy.keyMaxAgeDays}.`
        : null;
    },
    recommendation: 'Mint a new key per device, switch the device to it, and revoke the old one.',
    fix: (s) => ({
      steps: [
        'POST /api/v1/auth/keys {"name": "<device>"} and give the new key to that device.',
        'DELETE /api/v1/auth/keys/<old id> once the device uses the new key.',
        `Or allow older keys: KEY_MAX_AGE_DAYS (now ${s.policy.keyMaxAgeDays}).`,
      ],
    }),
  },
  {
    id: 'device-key-idle',
    severity: 'low',
    title: 'Device keys unused for a long time',
    test: (s, now) => {
      const idle = s.keys.filter(
        (k) => k.kind === 'device' && ageDays(k.lastUsedAt ?? k.createdAt, now) > s.policy.deviceKeyIdleDays,
      );
      return idle.length
        ? `${list(idle.map((k) => `"${k.name}" (${k.id})`))} ${idle.length === 1 ? 'has' : 'have'} not been used for more than DEVICE_KEY_IDLE_DAYS=${s.policy.deviceKeyIdleDays} days; a lost device keeps working until its key is revoked.`
        : null;
    },
    recommendation: 'Revoke device keys that are no longer in use.',
    fix: () => ({
      steps: ['GET /api/v1/auth/keys to see them, then DELETE /api/v1/auth/keys/<id> for each idle one.'],
    }),
  },
  {
    id: 'body-limit-large',
    severity: 'low',
    title: 'The request body limit is very large',
    test: (s) =>
      s.maxBodyBytes > MAX_SANE_BODY_BYTES
        ? `MAX_BODY_BYTES=${s.maxBodyBytes}: one request can hold that much memory while it is read.`
        : null,
    recommendation: 'Lower MAX_BODY_BYTES to what your largest note needs (default 10 MiB).',
    fix: () => ({
      steps: ['Set MAX_BODY_BYTES=10485760 and restart.'],
      variables: [{ name: 'MAX_BODY_BYTES', value: '10485760' }],
    }),
  },
  {
    id: 'agent-remote-provider',
    severity: 'info',
    title: 'The agent sends note content to a remote API',
    test: (s) => {
      if (!s.agent.enabled || s.agent.provider === 'local') return null;
      const host = s.agent.baseUrl ? hostOf(s.agent.baseUrl) : null;
      if (host && isLoopbackHost(host)) return null;
      return `AGENT_PROVIDER=${s.agent.provider} sends the notes a chat reads to ${host ?? "the provider's public API"}.`;
    },
    recommendation:
      'Fine if intended; for notes that must stay here use AGENT_PROVIDER=local or a model on this machine.',
    fix: () => ({
      steps: [
        'Use AGENT_PROVIDER=local, or a local model (AGENT_BASE_URL=http://localhost:11434/v1 for Ollama).',
      ],
      variables: [{ name: 'AGENT_PROVIDER', value: 'local' }],
    }),
  },
  {
    id: 'plugin-egress',
    severity: 'info',
    title: 'Plugins may reach the network',
    test: (s) => {
      const out = s.plugins.filter((p) => p.enabled && p.egress);
      return out.length ? `Enabled plugins with network egress: ${list(out.map((p) => p.id))}.` : null;
    },
    recommendation: 'Fine if intended; disable plugins you do not use.',
    fix: () => ({ steps: ['POST /api/v1/plugins/:id/toggle for each plugin you do not need.'] }),
  },
];
