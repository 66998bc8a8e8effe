import { Hono } from 'hono';
import { ok } from '../../../http-kit/envelope.ts';
import { viewOf } from '../scoped.ts';
import type { AppEnv } from '../types.ts';

/** `/api/v1/tags`: every tag with its note count, most used first. */
export function tagsRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => ok(c, viewOf(c).notes.tags()));
  return app;
}
