/**
 * `/api/v1/publications`: the owner publishes a note or a folder read-only at `/p/<id>/`, lists
 * and revokes publications; a manager does the same inside the folders they manage. The pages
 * themselves are routes/published.ts. Decision 0035.
 */
import { type Context, Hono } from 'hono';
import { requireCap, requireWholeVault } from '../../../core/auth/access.ts';
import { DomainError } from '../../../core/errors.ts';
import type { PeopleService } from '../../../core/people/service.ts';
import { folderOf, NewPublicationSchema, type PublicationService } from '../../../core/publish/service.ts';
import type { PublicationInfo } from '../../../core/publish/types.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { viewOf } from '../scoped.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { publicBase } from './oauth.ts';

export function publicationsRoutes(deps: AppDeps, pubs: PublicationService, people?: PeopleService) {
  const app = new Hono<AppEnv>();
  const isOwner = (c: Context<AppEnv>) => {
    const p = c.get('principal');
    try {
      requireCap(p, 'admin');
      requireWholeVault(p);
      return true;
    } catch {
      return false;
    }
  };
  /** Who may publish (or revoke) at `folder`: the owner, or a manager of it. */
  const publisher = (c: Context<AppEnv>, folder: string): string => {
    if (isOwner(c)) {
      const p = c.get('principal');
      return p?.personId ? `person:${p.personId}` : 'owner';
    }
    const p = c.get('principal');
    if (p?.personId && people?.manages(p.personId, folder)) return `person:${p.personId}`;
    throw new DomainError(
      'FORBIDDEN',
      'Forbidden: only the owner or a manager of this folder may publish it.',
    );
  };
  const mayManage = (c: Context<AppEnv>, info: PublicationInfo) => {
    const p = c.get('principal');
    return isOwner(c) || Boolean(p?.personId && people?.manages(p.personId, folderOf(info)));
  };
  /** The addresses of a publication: directly, and through the relay when the server pairs there. */
  const withLinks = (c: Context<AppEnv>, info: PublicationInfo) => {
    const relay = deps.setup?.config.pairingMode === 'relay' ? deps.setup.config.relayUrl : null;
    const serverId = deps.setup?.service.serverId;
    return {
      ...info,
      url: `${publicBase(c, deps)}/p/${info.id}/`,
      relayUrl: relay && serverId ? `${relay}/r/${encodeURIComponent(serverId)}/p/${info.id}/` : null,
    };
  };
  const mustGet = (c: Context<AppEnv>, id: string): PublicationInfo => {
    const info = pubs.list().find((p) => p.id === id);
    // One answer for "none" and "not yours": a manager learns nothing of other folders.
    if (!info || !mayManage(c, info)) throw new DomainError('NOT_FOUND', 'No publication has that id.');
    return info;
  };

  app.get('/', (c) => {
    const p = c.get('principal');
    const manager = p?.personId && people?.get(p.personId).shares.some((s) => s.role === 'manager');
    if (!isOwner(c) && !manager)
      throw new DomainError('FORBIDDEN', 'Forbidden: only the owner or a manager may list publications.');
    return ok(
      c,
      pubs
        .list()
        .filter((x) => mayManage(c, x))
        .map((x) => withLinks(c, x)),
    );
  });
  app.post('/', async (c) => {
    const body = await readJson(c, NewPublicationSchema);
    const raw = body.path;
    const isNote = raw.toLowerCase().endsWith('.md');
    const folder = isNote
      ? folderOf({ kind: 'note', path: raw.replace(/^\/+/, '') })
      : `${raw.replace(/^\/+/, '').replace(/\/+$/, '')}/`.replace(/^\/$/, '');
    const by = publisher(c, folder);
    // The note must exist for the publisher (their view: a manager sees only what is shared).
    if (isNote) await viewOf(c).notes.get(raw.replace(/^\/+/, ''));
    const info = await pubs.create(body, by);
    return ok(c, withLinks(c, info), 201);
  });
  app.get('/:id', (c) => ok(c, withLinks(c, mustGet(c, c.req.param('id')))));
  app.delete('/:id', async (c) => {
    const info = mustGet(c, c.req.param('id'));
    return ok(c, await pubs.revoke(info.id));
  });
  return app;
}
