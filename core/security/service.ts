import { isLoopbackHost } from '../net/hosts.ts';
import type { Clock } from '../ports.ts';
import { recommendationsOf, runAudit } from './audit.ts';
import type {
  AuditReport,
  ChannelFact,
  KeyFact,
  PersonFact,
  PluginFact,
  PublicationFact,
  Recommendation,
  SecuritySnapshot,
  StateFileMode,
} from './types.ts';

/** The settings part of a snapshot: configuration, read again on every request. */
export type SecuritySettings = Omit<
  SecuritySnapshot,
  'setup' | 'keys' | 'stateFiles' | 'channels' | 'plugins' | 'people' | 'publications'
>;

/** What the security service reads the live state from. */
export interface SecurityDeps {
  clock: Clock;
  /** The effective configuration (a function: some of it, like the relay address, is known late). */
  settings: () => SecuritySettings;
  /** Setup state and keys (the auth service); absent means no setup endpoint and no keys. */
  auth?: { readonly setupComplete: boolean; firstKeyPlain(): string | null; listKeys(): KeyFact[] };
  /** Permission bits of DATA_DIR and the files in it; absent on runtimes without a filesystem. */
  stateFileModes?: () => Promise<StateFileMode[]>;
  /** The channels (default: none). */
  channels?: () => ChannelFact[];
  /** The installed plugins (default: none). */
  plugins?: () => PluginFact[];
  /** The people who may sign in (default: none). */
  people?: () => PersonFact[];
  /** The publications (default: none). */
  publications?: () => PublicationFact[];
}

const mode = (m: number) => `0${(m & 0o777).toString(8).padStart(3, '0')}`;

/** Strips anything but scheme, host and path from a URL (no user, query or fragment). */
function safeUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}

/**
 * The security audit, configuration and recommendations over live state. Every call gathers
 * a fresh snapshot; the checks themselves are pure (`runAudit`).
 */
export function createSecurityService(deps: SecurityDeps) {
  const snapshot = async (): Promise<SecuritySnapshot> => {
    const auth = deps.auth;
    return {
      ...deps.settings(),
      setup: {
        complete: auth ? auth.setupComplete : true,
        firstKeyExposed: auth ? !auth.setupComplete && auth.firstKeyPlain() !== null : false,
      },
      keys: (auth?.listKeys() ?? []).map(({ id, name, kind, createdAt, lastUsedAt }) => ({
        id,
        name,
        kind,
        createdAt,
        lastUsedAt,
      })),
      stateFiles: (await deps.stateFileModes?.()) ?? [],
      channels: deps.channels?.() ?? [],
      plugins: deps.plugins?.() ?? [],
      people: deps.people?.() ?? [],
      publications: deps.publications?.() ?? [],
    };
  };

  return {
    /** A fresh snapshot of everything the audit reads. */
    snapshot,
    /** `GET /security/audit`: score, grade, counts and findings, worst first. */
    async audit(): Promise<AuditReport> {
      return runAudit(await snapshot(), deps.clock.now());
    },
    /** `GET /security/recommendations`: steps per finding, most score regained first. */
    async recommendations(): Promise<{
      score: number;
      grade: AuditReport['grade'];
      recommendations: Recommendation[];
      checkedAt: string;
    }> {
      const s = await snapshot();
      const now = deps.clock.now();
      const { score, grade, checkedAt } = runAudit(s, now);
      return { score, grade, recommendations: recommendationsOf(s, now), checkedAt };
    },
    /** `GET /security/config`: the effective security settings, never a secret. */
    async config() {
      const s = await snapshot();
      const publicListen = !isLoopbackHost(s.host);
      return {
        auth: {
          mode: s.authMode,
          header: 'X-Service-Key',
          bearerTokens: s.authMode === 'jwt',
          setupComplete: s.setup.complete,
          firstKeyExposed: s.setup.firstKeyExposed,
          keys: {
            count: s.keys.length,
            maxAgeDays: s.policy.keyMaxAgeDays,
            deviceIdleDays: s.policy.deviceKeyIdleDays,
          },
        },
        listen: { host: s.host, public: publicListen },
        tls: {
          expected: publicListen,
          terminatedByProxy: s.tlsTerminatedByProxy,
          publicUrl: safeUrl(s.publicUrl),
        },
        cors: { origins: s.corsOrigins },
        rateLimits: s.rateLimits ? { enabled: true, ...s.rateLimits } : { enabled: false },
        bodyLimits: { maxBodyBytes: s.maxBodyBytes },
        pairing: {
          mode: s.pairing.mode,
          relayUrl: safeUrl(s.pairing.relayUrl),
          embeddedRelayHost: s.pairing.embeddedRelayHost,
          codeTtlSeconds: s.pairing.codeTtlSeconds,
        },
        trustProxy: s.trustProxy,
        timeouts: s.timeouts ?? null,
        agent: {
          enabled: s.agent.enabled,
          provider: s.agent.provider,
          baseUrl: safeUrl(s.agent.baseUrl),
        },
        stateFiles: s.stateFiles.map((f) => ({ name: f.name, mode: mode(f.mode), dir: f.dir })),
        channels: s.channels.map(({ id, provider, enabled, signatureCheck }) => ({
          id,
          provider,
          enabled,
          signatureCheck,
        })),
        plugins: s.plugins.map(({ id, enabled, egress }) => ({ id, enabled, egress })),
      };
    },
  };
}

/** The security service's type. */
export type SecurityService = ReturnType<typeof createSecurityService>;
