import { Hono } from 'hono';
import { DomainError } from '../../../core/errors.ts';
import { ok } from '../envelope.ts';
import type { AppDeps, AppEnv } from '../types.ts';

/** Health (public) and the answers for retired routes. */
export function systemRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const startedAt = deps.clock.now();
  app.get('/health', (c) => {
    const s = deps.notes.status();
    return ok(c, {
      status: s.state === 'ready' ? 'ok' : 'starting',
      version: deps.version,
      uptimeSeconds: Math.round((deps.clock.now() - startedAt) / 1000),
      notes: s.notes,
      index: { state: s.state, done: s.done, total: s.total },
    });
  });
  app.get('/agent/tools', () => {
    throw new DomainError('GONE', 'GET /api/v1/agent/tools was replaced by GET /api/v1/agent/status.');
  });
  app.post('/folders', () => {
    throw new DomainError('GONE', 'POST /api/v1/folders was replaced by GET /api/v1/folders/tree/:path.');
  });
  return app;
}
