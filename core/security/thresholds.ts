/**
 * Where the audit starts calling a setting weak. Each threshold is shown next to its variable in
 * the variable table (deploy/shared/config/variables.ts) and on docs/reference/configuration.md.
 */
export const AUDIT_THRESHOLDS = {
  /** RATE_LIMIT_FAILURES above this lets a guesser try too often per window. */
  failures: 100,
  /** RATE_LIMIT_FAILURE_WINDOW_SECONDS below this forgets failures too soon. */
  failureWindowSeconds: 60,
  /** RATE_LIMIT_AUTH_PER_MINUTE above this. */
  authPerMinute: 300,
  /** RATE_LIMIT_WEBHOOK_PER_MINUTE above this. */
  webhookPerMinute: 1_200,
  /** PAIRING_CODE_TTL_SECONDS above this leaves a code usable too long (1 hour). */
  codeTtlSeconds: 3_600,
  /** JWT_TTL_SECONDS above this keeps a token alive too long after its key is lost (1 hour). */
  jwtTtlSeconds: 3_600,
  /** HEADERS_TIMEOUT_MS above this lets slow clients hold sockets (60 s). */
  headersMs: 60_000,
  /** REQUEST_TIMEOUT_MS above this (5 minutes). */
  requestMs: 300_000,
  /** KEEP_ALIVE_TIMEOUT_MS above this (65 s). */
  keepAliveMs: 65_000,
  /** MAX_BODY_BYTES above this (64 MiB). */
  maxBodyBytes: 64 * 1024 * 1024,
} as const;
