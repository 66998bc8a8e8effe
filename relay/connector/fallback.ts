import type { Logger } from '../../core/ports.ts';
import type { RelayConnector } from './connector.ts';

/**
 * A connector on a preferred transport that moves to another when the relay has no endpoint for
 * it: `first` is built with the callback to call when its transport is missing (the tunnel's
 * upgrade answered 404: a relay older than the tunnel), and from then on `then()` (the long-poll
 * connector) serves, for as long as this connector runs. The only place the tunnel falls back.
 */
export function withFallback(
  first: (unsupported: () => void) => RelayConnector,
  then: () => RelayConnector,
  fields: { logger: Logger; serverId: string },
): RelayConnector {
  let fallback: RelayConnector | null = null;
  let running = false;
  const primary = first(() => {
    if (!running || fallback) return;
    fields.logger.info('relay has no tunnel endpoint; using the long-poll protocol', {
      serverId: fields.serverId,
    });
    fallback = then();
    fallback.start();
  });
  return {
    start() {
      running = true;
      if (fallback) fallback.start();
      else primary.start();
    },
    async stop(graceMs) {
      running = false;
      const moved = fallback;
      fallback = null;
      await Promise.all([primary.stop(graceMs), moved?.stop(graceMs)]);
    },
    status: () => fallback?.status() ?? primary.status(),
    syncPairCode: () => (fallback ?? primary).syncPairCode(),
  };
}
