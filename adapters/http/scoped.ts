/**
 * The request's view of the services (core/auth/scoped.ts), set once per request by one
 * middleware, `scopedView`, after the key check: every route, REST and MCP alike, takes its note,
 * file and search service from `viewOf(c)`, so the core decides what a key may see and do and no
 * route assembles a scope of its own. For a principal with full access the view is the services
 * themselves (one object made when the app is, nothing per request).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { hasCapability } from '../../core/auth/scope.ts';
import { scopedFiles, scopedNotes, scopedRetrieval } from '../../core/auth/scoped.ts';
import type { FileService } from '../../core/files/service.ts';
import type { Principal } from '../../core/ports.ts';
import type { AppEnv, RequestView } from './types.ts';

type Services = Pick<RequestView, 'notes' | 'files' | 'retrieval'>;

/** The view of `all` for `principal`: the services themselves when nothing limits it. */
export function viewFor(all: Services, principal: Principal | undefined, full?: RequestView): RequestView {
  const scope = principal?.scope;
  if (scope === undefined) return full ?? { ...all, read: true, write: true };
  return {
    notes: scopedNotes(all.notes, principal),
    files: all.files && scopedFiles(all.files, principal),
    retrieval: scopedRetrieval(all.retrieval, principal),
    read: hasCapability(scope, 'notes:read'),
    write: hasCapability(scope, 'notes:write'),
  };
}

/** Sets the request's view from its principal (adapters/http/app.ts mounts it after the key check). */
export function scopedView(all: Services): MiddlewareHandler<AppEnv> {
  const full: RequestView = { ...all, read: true, write: true };
  return (c, next) => {
    c.set('view', viewFor(all, c.get('principal'), full));
    return next();
  };
}

/** The request's view (`scopedView`); a route mounted outside the app has none: a bug, said plainly. */
export function viewOf(c: Context<AppEnv>): RequestView {
  const v = c.get('view');
  if (!v) throw new Error('no scoped view on this request: mount the route inside createApp');
  return v;
}

/** The request's file service; only the attachment routes ask, mounted with one. */
export function filesOf(c: Context<AppEnv>): FileService {
  const f = viewOf(c).files;
  if (!f) throw new Error('no file service on this server');
  return f;
}
