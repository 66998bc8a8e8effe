import { loadRelayConfig } from '../../deploy/shared/config/relay.ts';
import type { StartRelayConfig } from '../../relay/node/server.ts';
import type { RelayLimits } from '../../relay/service/types.ts';

/** What a test sets of a relay's configuration; the rest is `npm run relay`'s default. */
export type RelayOverrides = Partial<Omit<StartRelayConfig, 'limits'>> & { limits?: Partial<RelayLimits> };

/**
 * A whole relay configuration for `startRelay`: the environment's defaults (deploy/shared/config)
 * under `over`. Like RELAY_OFFLINE_AFTER_MS left unset, an offline limit not given follows the pull wait.
 */
export function relayConfig(over: RelayOverrides = {}): StartRelayConfig {
  const { logLevel: _, ...defaults } = loadRelayConfig({});
  const limits = { ...defaults.limits, ...over.limits };
  if (over.limits?.offlineAfterMs === undefined)
    limits.offlineAfterMs = Math.max(defaults.limits.offlineAfterMs, limits.pullWaitMs + 15_000);
  return { ...defaults, ...over, limits };
}
