import { DomainError } from '../errors.ts';
import type { Authenticator, Principal } from '../ports.ts';
import type { Jwt } from './jwt.ts';
import type { AuthService } from './service.ts';

/** The three modes of SERVICE_AUTH_MODE. */
export type AuthMode = 'api-key' | 'jwt' | 'none';

/** The Authenticator port for the configured mode. */
export function createAuthenticator(opts: {
  mode: AuthMode;
  auth: AuthService;
  jwt?: Jwt | null;
}): Authenticator {
  const { mode, auth, jwt } = opts;
  if (mode === 'jwt' && !jwt) throw new Error('jwt mode needs a JWT verifier');
  return {
    async authenticate(creds): Promise<Principal> {
      if (mode === 'none') return { id: 'anonymous', method: 'none' };
      if (mode === 'jwt') {
        if (!creds.bearer) {
          throw new DomainError(
            'UNAUTHORIZED',
            'Send "Authorization: Bearer <token>"; trade your key for one at POST /api/v1/auth/token.',
          );
        }
        const { subject } = await jwt!.verify(creds.bearer);
        return { id: subject, method: 'jwt' };
      }
      if (!creds.apiKey) {
        throw new DomainError('UNAUTHORIZED', 'Send your API key in the X-Service-Key header.');
      }
      const key = await auth.verifyKey(creds.apiKey);
      if (!key) throw new DomainError('INVALID_API_KEY', 'The API key in X-Service-Key is not valid.');
      return { id: key.id, method: 'api-key' };
    },
  };
}
