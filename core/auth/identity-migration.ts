import { createIdentity, serverIdOf } from '../identity.ts';
import type { Logger } from '../ports.ts';
import type { AuthState } from './state.ts';

/**
 * The one-time migration of a server made before identity keys: it gets an Ed25519 key pair
 * and the serverId derived from it. The old random id is kept as `previousServerId` for the
 * record but is never used again, so no relay can be asked to trust it on first use; clients
 * linked through the relay link again (docs/reference/relay.md, "Migration"). Direct links are unchanged.
 */
export async function withIdentity(state: AuthState, logger?: Logger): Promise<AuthState> {
  const identity = await createIdentity();
  const serverId = (await serverIdOf(identity.publicKey)) as string;
  logger?.warn(
    'relay identity key created: the serverId changed (clients linked through the relay link again)',
    {
      previousServerId: state.serverId,
      serverId,
    },
  );
  return { ...state, serverId, identity, previousServerId: state.serverId };
}
