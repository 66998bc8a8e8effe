import { describe, expect, it } from 'vitest';
import { loadRelayConfig } from '../../deploy/shared/config/relay.ts';
import { createRelay } from '../../relay/http/app.ts';
import { memoryRelayQueue } from '../../relay/queue/memory.ts';
import { DEFAULT_LIMITS, defaultOfflineAfterMs, relayLimits } from '../../relay/service/types.ts';
import { silentLogger } from '../helpers/logger.ts';

describe('the offlineAfterMs default (one rule, relay/service/types.ts)', () => {
  it('is at least the pull wait plus 15 s, never below the default; a given value stands', () => {
    expect(defaultOfflineAfterMs(25_000)).toBe(DEFAULT_LIMITS.offlineAfterMs);
    expect(defaultOfflineAfterMs(60_000)).toBe(75_000);
    expect(relayLimits({ pullWaitMs: 60_000 }).offlineAfterMs).toBe(75_000);
    expect(relayLimits({ pullWaitMs: 60_000, offlineAfterMs: 90_000 }).offlineAfterMs).toBe(90_000);
  });

  it('the config reader and the relay app apply the same rule', () => {
    expect(loadRelayConfig({ RELAY_PULL_WAIT_MS: '60000' }).limits.offlineAfterMs).toBe(75_000);
    expect(loadRelayConfig({}).limits.offlineAfterMs).toBe(DEFAULT_LIMITS.offlineAfterMs);
    const { limits } = createRelay({
      queue: memoryRelayQueue(),
      publicBaseUrl: 'http://relay.test',
      logger: silentLogger,
      limits: { pullWaitMs: 60_000 },
    });
    expect(limits.offlineAfterMs).toBe(75_000);
  });
});
