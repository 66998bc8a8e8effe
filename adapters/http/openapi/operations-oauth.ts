/** The owner's operations on OAuth grants (the OAuth endpoints themselves: oauth-paths.ts). */
import * as v from 'valibot';
import { KeyScopeSchema } from '../../../core/auth/scope.ts';
import type { Operation } from './operation.ts';

/** One grant an MCP client holds (`GET /api/v1/auth/oauth/grants`). */
export const OAuthGrant = v.object({
  id: v.string(),
  clientId: v.string(),
  /** The name the client gave itself (its own claim), or null. */
  clientName: v.nullable(v.string()),
  /** The key that approved it; revoking that key ends the grant. */
  keyId: v.string(),
  scope: KeyScopeSchema,
  /** The resource its tokens are bound to (`<base>/mcp`). */
  resource: v.string(),
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
});

export const RevokedGrant = v.object({ revoked: v.string() });

export const oauth: Operation[] = [
  {
    id: 'listOAuthGrants',
    method: 'get',
    path: '/api/v1/auth/oauth/grants',
    tag: 'Auth',
    summary: 'OAuth grants held by MCP clients: client, approving key, scope (needs admin)',
    data: v.array(OAuthGrant),
    errors: [403],
  },
  {
    id: 'revokeOAuthGrant',
    method: 'delete',
    path: '/api/v1/auth/oauth/grants/{id}',
    tag: 'Auth',
    summary: 'End one OAuth grant (its tokens stop at once) without revoking the approving key',
    data: RevokedGrant,
    errors: [403, 404],
  },
];
