import { relayConnector } from '../../relay/connector/connector.ts';
import { tunnelConnector } from '../../relay/connector/tunnel-connector.ts';
import { runRelayConnectorContract } from './relay-connector.contract.ts';

for (const queue of ['memory', 'redis'] as const) {
  runRelayConnectorContract('long-poll (relay/connector/connector.ts)', { make: relayConnector, queue });
  runRelayConnectorContract('tunnel (relay/connector/tunnel-connector.ts)', { make: tunnelConnector, queue });
}
