/** The security audit's shapes (docs/reference/security.md, "The report"). */

/** How bad a finding is, worst first. */
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

/** Severities from worst to mildest; findings are ordered this way. */
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** A channel as the audit sees it (the channels service provides these). */
export interface ChannelFact {
  id: string;
  provider: string;
  enabled: boolean;
  /** Whether inbound webhooks are checked against the provider's own signature or token. */
  signatureCheck: boolean;
}

/** A person as the audit sees it (the people service provides these; never a secret). */
export interface PersonFact {
  id: string;
  name: string;
  disabled: boolean;
  /** How they sign in. */
  password: boolean;
  passkeys: number;
}

/** A publication as the audit sees it (the publications service provides these; never a hash). */
export interface PublicationFact {
  id: string;
  kind: 'note' | 'folder';
  /** A note path, or a folder ending in `/` ('' the whole vault). */
  path: string;
  password: boolean;
  expiresAt: string | null;
  /** False once expired (its pages answer 410). */
  active: boolean;
}

/** A plugin as the audit sees it (the plugins service provides these). */
export interface PluginFact {
  id: string;
  enabled: boolean;
  /** Whether the plugin may open network connections. */
  egress: boolean;
}

/**
 * Socket time-outs against slow clients, in ms: what the server's and the relay's node:http
 * servers enforce (`http-kit/node/http-timeouts.ts`), read from the variable table, and audited.
 */
export interface HttpTimeouts {
  /** Longest a client may take to send the request headers. */
  headersMs: number;
  /** Longest a client may take to send the whole request, body included (not the answer). */
  requestMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveMs: number;
}

/** An API key without its secret: when it was made and last used. */
export interface KeyFact {
  id: string;
  name: string;
  kind: 'first' | 'device';
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null when never used. */
  lastUsedAt: string | null;
}

/** Permission bits of one file (or the folder itself, `dir: true`) in DATA_DIR. */
export interface StateFileMode {
  name: string;
  /** The low 9 permission bits, e.g. 0o600. */
  mode: number;
  dir: boolean;
}

/** Everything the audit reads: a plain snapshot of the live configuration and state. */
export interface SecuritySnapshot {
  authMode: 'api-key' | 'jwt' | 'none';
  /** The server's listening address (HOST). */
  host: string;
  /** PUBLIC_URL, or null. */
  publicUrl: string | null;
  /** TLS_TERMINATED_BY_PROXY: a proxy in front speaks HTTPS to clients. */
  tlsTerminatedByProxy: boolean;
  /** The browser origins CORS allows. */
  corsOrigins: string[];
  /** The limits on authentication attempts, or false when rate limiting is off. */
  rateLimits:
    | { authPerMinute: number; failures: number; failureWindowSeconds: number; webhookPerMinute?: number }
    | false;
  /** JWT_TTL_SECONDS in jwt mode (the lifetime of issued tokens); null or absent otherwise. */
  jwtTtlSeconds?: number | null;
  /** EGRESS_ALLOW: private destinations the operator allows; absent or empty: none. */
  egressAllow?: string[];
  trustProxy: boolean;
  pairing: {
    mode: 'relay' | 'open-port';
    /** The relay this server registers with and sends clients to; null in open-port mode. */
    relayUrl: string | null;
    /** Listening address of the relay running in this process; null when none runs here. */
    embeddedRelayHost: string | null;
    codeTtlSeconds: number;
  };
  /** Request body limit in bytes. */
  maxBodyBytes: number;
  setup: { complete: boolean; firstKeyExposed: boolean };
  keys: KeyFact[];
  /** KEY_MAX_AGE_DAYS and DEVICE_KEY_IDLE_DAYS. */
  policy: { keyMaxAgeDays: number; deviceKeyIdleDays: number };
  stateFiles: StateFileMode[];
  agent: { enabled: boolean; provider: string; baseUrl: string | null };
  channels: ChannelFact[];
  plugins: PluginFact[];
  /** The people who may sign in (absent or empty: keys only). */
  people?: PersonFact[];
  /** Notes and folders published to anyone with the link (absent or empty: none). */
  publications?: PublicationFact[];
  /** Socket time-outs against slow clients, in ms (absent when the runtime sets none). */
  timeouts?: HttpTimeouts;
}

/** One problem the audit found. */
export interface Finding {
  /** Stable kebab-case id of the check, e.g. `auth-disabled`. */
  id: string;
  severity: Severity;
  title: string;
  /** What is wrong here, naming the setting and its current value. */
  description: string;
  /** One sentence: what to change. */
  recommendation: string;
}

/** `GET /api/v1/security/audit` data. */
export interface AuditReport {
  /** 0 to 100; see docs/reference/security.md for the rule. */
  score: number;
  grade: 'A' | 'B' | 'C' | 'D' | 'F';
  summary: Record<Severity, number>;
  /** Worst first. */
  findings: Finding[];
  /** ISO 8601. */
  checkedAt: string;
}

/** One step an operator can take, derived from a finding. */
export interface Recommendation {
  /** The finding it resolves. */
  id: string;
  severity: Severity;
  title: string;
  /** Score points regained by resolving it. */
  impact: number;
  /** Concrete steps, in order. */
  steps: string[];
  /** Environment variables to set, and to what. */
  variables: { name: string; value: string }[];
}
