/**
 * `/api/v1/people`: the owner adds, lists, disables and removes people, invites them and shares
 * folders with them; a manager shares (and unshares) only inside the folders they manage.
 * "Owner" is a whole-vault credential with admin: the owner's keys, or a person whose role is
 * owner. Decision 0031.
 */
import { type Context, Hono } from 'hono';
import * as v from 'valibot';
import { requireCap, requireWholeVault } from '../../../core/auth/access.ts';
import { DomainError } from '../../../core/errors.ts';
import { NewShareSchema, type PeopleService } from '../../../core/people/service.ts';
import { PERSON_ROLES } from '../../../core/people/types.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import { serverUrl } from '../client.ts';
import type { AppDeps, AppEnv } from '../types.ts';
import { publicBase } from './oauth.ts';

export const PatchBody = v.object({
  disabled: v.optional(v.boolean()),
  role: v.optional(v.picklist(PERSON_ROLES)),
});
export const AddBody = v.object({ name: v.string(), role: v.optional(v.picklist(PERSON_ROLES)) });

/**
 * The page an invited person opens. The token rides in the fragment: a browser never sends it to
 * a server or writes it in a log. A server paired through the relay has no address the person can
 * reach: the link opens the workspace where it is hosted (CLIENT_URL, else this server's own address, as the setup links do) and names
 * the server's address on the relay after the token, so the page signs them in through it.
 */
function inviteLink(c: Context, deps: AppDeps, token: string): string {
  const cfg = deps.setup?.config;
  if (cfg?.pairingMode !== 'relay' || !cfg.relayUrl || !deps.setup)
    return `${publicBase(c, deps)}/invite#${token}`;
  const via = `${cfg.relayUrl}/r/${encodeURIComponent(deps.setup.service.serverId)}`;
  const client = (cfg.clientUrl ?? serverUrl(c, deps)).replace(/\/+$/, '');
  return `${client}/invite#${token}&via=${encodeURIComponent(via)}`;
}

export function peopleRoutes(deps: AppDeps, people: PeopleService) {
  const app = new Hono<AppEnv>();
  const owner = (c: Context<AppEnv>) => {
    const p = c.get('principal');
    requireCap(p, 'admin');
    requireWholeVault(p);
    return p?.personId ? `person:${p.personId}` : 'owner';
  };
  /** The owner, or a manager of `folder`: who may share it. */
  const sharer = (c: Context<AppEnv>, folder: string): string => {
    const p = c.get('principal');
    if (p?.personId && people.manages(p.personId, folder)) return `person:${p.personId}`;
    try {
      return owner(c);
    } catch {
      throw new DomainError(
        'FORBIDDEN',
        'Forbidden: only the owner or a manager of this folder may share it.',
      );
    }
  };
  const isOwner = (c: Context<AppEnv>) => {
    try {
      owner(c);
      return true;
    } catch {
      return false;
    }
  };

  app.get('/', (c) => {
    if (isOwner(c)) return ok(c, people.list());
    // A manager picks whom to share with: names only, never others' shares.
    const p = c.get('principal');
    if (p?.personId && people.get(p.personId).shares.some((s) => s.role === 'manager'))
      return ok(
        c,
        people
          .list()
          .filter((x) => !x.disabled)
          .map((x) => ({ id: x.id, name: x.name })),
      );
    owner(c);
    return ok(c, []);
  });
  app.post('/', async (c) => {
    owner(c);
    return ok(c, await people.add(await readJson(c, AddBody)), 201);
  });
  app.get('/:id', (c) => {
    owner(c);
    return ok(c, people.get(c.req.param('id')));
  });
  app.patch('/:id', async (c) => {
    owner(c);
    const b = await readJson(c, PatchBody);
    const id = c.req.param('id');
    if (b.role !== undefined) await people.setRole(id, b.role);
    if (b.disabled !== undefined) await people.setDisabled(id, b.disabled);
    return ok(c, people.get(id));
  });
  app.delete('/:id', async (c) => {
    owner(c);
    return ok(c, await people.remove(c.req.param('id')));
  });
  app.post('/:id/invite', async (c) => {
    owner(c);
    const inv = await people.invite(c.req.param('id'));
    return ok(c, { ...inv, link: inviteLink(c, deps, inv.token) }, 201);
  });
  app.post('/:id/shares', async (c) => {
    const body = await readJson(c, NewShareSchema);
    const by = sharer(c, body.folder);
    const s = await people.share(c.req.param('id'), body, by);
    return ok(c, { id: s.id, folder: s.folder, role: s.role }, 201);
  });
  app.delete('/:id/shares/:share', async (c) => {
    const id = c.req.param('id');
    const s = people.shareOf(id, c.req.param('share'));
    sharer(c, s.folder);
    return ok(c, await people.unshare(id, s.id));
  });
  return app;
}
