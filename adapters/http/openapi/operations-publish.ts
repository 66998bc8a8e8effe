/** The documented operations of publishing (routes/publications.ts); the pages at `/p/<id>/` are HTML. */
import * as v from 'valibot';
import { NewPublicationSchema } from '../../../core/publish/service.ts';
import type { Operation } from './operation.ts';

const Publication = v.object({
  id: v.string(),
  kind: v.picklist(['note', 'folder']),
  path: v.string(),
  createdAt: v.string(),
  by: v.string(),
  expiresAt: v.nullable(v.string()),
  password: v.boolean(),
  noindex: v.boolean(),
  active: v.boolean(),
  url: v.string(),
  relayUrl: v.nullable(v.string()),
});

/** Publications: a note or a folder read-only at `/p/<id>/` (owner; a manager inside their folders). */
export const publish: Operation[] = [
  {
    id: 'listPublications',
    method: 'get',
    path: '/api/v1/publications',
    tag: 'Auth',
    summary: 'The publications (owner); a manager sees those inside the folders they manage',
    data: v.array(Publication),
    errors: [403],
  },
  {
    id: 'publish',
    method: 'post',
    path: '/api/v1/publications',
    tag: 'Auth',
    summary:
      'Publish a note (a path ending in .md) or a folder ("" the whole vault) read-only at `/p/<id>/`, optionally until `expiresAt` and behind a password; `noindex` defaults to true',
    body: NewPublicationSchema,
    status: 201,
    data: Publication,
    errors: [403, 404],
  },
  {
    id: 'getPublication',
    method: 'get',
    path: '/api/v1/publications/{id}',
    tag: 'Auth',
    summary: 'One publication',
    data: Publication,
    errors: [403, 404],
  },
  {
    id: 'revokePublication',
    method: 'delete',
    path: '/api/v1/publications/{id}',
    tag: 'Auth',
    summary: 'Revoke a publication: its next page request answers 404',
    data: v.object({ id: v.string(), revoked: v.literal(true) }),
    errors: [403, 404],
  },
];
