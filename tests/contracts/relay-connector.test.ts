import { relayConnector } from '../../relay/connector/connector.ts';
import { tunnelConnector, tunnelOnly } from '../../relay/connector/tunnel-connector.ts';
import { runRelayConnectorContract } from './relay-connector.contract.ts';

for (const queue of ['memory', 'redis'] as const) {
  runRelayConnectorContract('long-poll (relay/connector/connector.ts)', { make: relayConnector, queue });
  runRelayConnectorContract('tunnel (relay/connector/tunnel-connector.ts)', {
    make: (opts) => tunnelOnly(opts),
    queue,
  });
  // What the server runs: the tunnel, with the long-poll fallback around it (fallback.ts).
  runRelayConnectorContract('tunnel with fallback', { make: tunnelConnector, queue });
}
