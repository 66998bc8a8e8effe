/** The relay's limits; every one configurable (deploy/shared/config/relay.ts names the variables). */
export interface RelayLimits {
  /** Largest proxied request body in bytes (413 above); also the largest relayed answer body. */
  maxBodyBytes: number;
  /** How long a client waits for its server's answer before 504, in ms. */
  answerTimeoutMs: number;
  /** Longest a pull waits for a first request, in ms (also the default wait). */
  pullWaitMs: number;
  /** Most requests one pull returns. */
  maxBatch: number;
  /** Most live requests queued per server (503 above). */
  maxQueue: number;
  /** A server without a register or pull for this long is offline (503), in ms. */
  offlineAfterMs: number;
  /** How long a registered pairing-code hash stays usable at the relay, in ms. */
  pairCodeTtlMs: number;
  /** Failed exchanges allowed per client address per window before 429. */
  pairFailuresPerClient: number;
  /** Failed exchanges allowed per serverId per window before 429. */
  pairFailuresPerServer: number;
  /** Length of the failure window, in ms. */
  pairFailureWindowMs: number;
  /** New serverIds one client address may register per hour (existing ones are not counted). */
  newServersPerClientHour: number;
  /** Proxied requests (`/r/*`) one client address may send per rate window before 429. */
  proxyPerClient: number;
  /** Proxied requests one serverId may receive per rate window before 429. */
  proxyPerServer: number;
  /** Length of the proxied-request rate window, in ms (fixed, per relay instance). */
  proxyWindowMs: number;
  /** Proxied requests per serverId per window answered 401/403 or sent without a credential (the stranger budget). */
  proxyUnauthPerServer: number;
  /** Proxied requests one client address may have open at once (429 above). */
  maxOpenPerClient: number;
  /** Request-body bytes one client address may have in flight (received, not yet answered). */
  maxInflightBytesPerClient: number;
  /** Request-body bytes the whole relay instance may have in flight. */
  maxInflightBytes: number;
  /** Longest a proxied request body may take to arrive, in ms (408 `REQUEST_TIMEOUT` above). */
  bodyTimeoutMs: number;
}
