/**
 * The one check of what a principal may do. Every path that serves or changes vault
 * content calls these: the HTTP routes (through `requireRoute` and the scoped views of
 * core/auth/scoped.ts), MCP, the agent's tools, plugins' routes, and the fast paths (which hand
 * a scoped principal to the full path instead).
 *
 * - A missing capability is 403 FORBIDDEN naming it (`missing capability notes:write`).
 * - A read outside the folder scope is the same 404 a missing note or file gets.
 * - A write outside the folder scope is 403 FORBIDDEN (decided on the path alone, so it tells
 *   nothing about what exists there).
 */
import { DomainError } from '../errors.ts';
import type { Principal } from '../ports.ts';
import { type Capability, hasCapability, inScope, inWriteScope, type KeyScope } from './scope.ts';

/** The principal's scope; undefined for full access (no principal: a server without auth). */
export const scopeOf = (p: Principal | undefined): KeyScope | undefined => p?.scope;

/** Throws 403 FORBIDDEN naming `cap` when the principal does not hold it. */
export function requireCap(p: Principal | undefined, cap: Capability): void {
  if (!hasCapability(p?.scope, cap)) {
    throw new DomainError('FORBIDDEN', `Forbidden: missing capability ${cap} for this key.`, {
      capability: cap,
    });
  }
}

/** True when the principal's folder scope lets it see `path` (a note, file or folder). */
export function visible(p: Principal | undefined, path: string): boolean {
  return inScope(p?.scope, path);
}

/** True when `scope` hides some paths (folders or excludes): views must be filtered. */
export function limitsFolders(scope: KeyScope | undefined): scope is KeyScope {
  return scope !== undefined && ((scope.folders?.length ?? 0) > 0 || (scope.exclude?.length ?? 0) > 0);
}

/** True when `scope` limits where it writes (folders, excludes or write folders): admin is closed. */
function limitsAnywhere(scope: KeyScope | undefined): boolean {
  if (scope?.writeFolders !== undefined) return true;
  return limitsFolders(scope);
}

/**
 * Throws 403 FORBIDDEN when the principal may not write at `path` (the capability, then the
 * folders). A path that is not a string is left to the service's own validation.
 */
export function requireWrite(p: Principal | undefined, cap: Capability, path: unknown): void {
  requireCap(p, cap);
  if (typeof path === 'string' && !inWriteScope(p?.scope, path)) {
    throw new DomainError('FORBIDDEN', `Forbidden: "${path.slice(0, 200)}" is outside this key's folders.`);
  }
}

/**
 * True when `folder` ('' the root, no trailing slash) is shown in a scoped folder tree: inside
 * the scope, or an ancestor of one of its folders (so the tree can be walked down to them).
 */
export function folderShown(scope: KeyScope | undefined, folder: string): boolean {
  if (scope === undefined || folder === '') return true;
  if (inScope(scope, folder)) return true;
  const f = `${folder}/`;
  return (scope.folders ?? []).some((s) => s.startsWith(f) && inScope(scope, s.slice(0, -1)));
}

const API = '/api/v1/';

/**
 * The capability an HTTP request needs, by route family; null: any authenticated principal.
 * Anything under /api/v1 not named here needs `admin` (closed by default).
 */
export function routeCapability(method: string, path: string): Capability | null {
  if (path === '/mcp' || path.startsWith('/mcp/')) return null; // per tool, in the MCP server
  if (!path.startsWith(API)) return null;
  const rest = path.slice(API.length);
  const family = rest.split('/', 1)[0]!;
  const read = method === 'GET' || method === 'HEAD';
  switch (family) {
    case 'notes':
      return read ? 'notes:read' : 'notes:write';
    case 'trash':
      // Deleting an item for good undoes the trash's promise (nothing is lost): an admin action,
      // for a key of the whole vault. A restore writes the note back: notes:write.
      if (method === 'DELETE') return 'admin';
      return read ? 'notes:read' : 'notes:write';
    case 'tags':
    case 'search':
    case 'events':
    case 'activity':
    // A live ticket needs only to read; whether it may change the note is decided with the ticket.
    case 'live':
      return 'notes:read';
    case 'folders':
      // The folder tree lists notes (and attachments, filtered by the files scope of the view).
      return read ? 'notes:read' : 'notes:write';
    case 'files':
      return read ? 'files:read' : 'files:write';
    case 'agent':
      return 'agent';
    case 'auth':
      // verify, link and token check the key themselves (auth routes); the rest is key management.
      return rest === 'auth/token' || rest === 'auth/verify' ? null : 'admin';
    case 'system':
      return rest === 'system/setup' ? null : 'admin';
    case 'people':
    case 'session':
    case 'invites':
    case 'publications':
      // The people routes decide themselves: the owner, a manager for their folders, a person
      // for their own session and keys (adapters/http/routes/people.ts, session.ts); publishing
      // the owner, or a manager inside their folders (routes/publications.ts).
      return null;
    case 'health':
    case 'openapi.json':
    case 'docs':
      return null;
    default:
      // channels, plugins (their own routes too), security, and anything added later.
      return 'admin';
  }
}

/** Throws 403 FORBIDDEN when the principal lacks what `method path` needs. */
export function requireRoute(p: Principal | undefined, method: string, path: string): void {
  const cap = routeCapability(method, path);
  if (cap === null) return;
  requireCap(p, cap);
  if (cap === 'admin') requireWholeVault(p);
}

/**
 * Throws 403 FORBIDDEN for a key limited to folders: `admin` work (keys, plugins, channels,
 * security, setup) sees and changes the whole vault, so it needs a key without folder limits.
 */
export function requireWholeVault(p: Principal | undefined): void {
  if (limitsAnywhere(p?.scope)) {
    throw new DomainError(
      'FORBIDDEN',
      'Forbidden: admin needs a key for the whole vault; this key is limited to folders.',
      { capability: 'admin' },
    );
  }
}
