import { Hono } from 'hono';
import type { SecurityService } from '../../../core/security/service.ts';
import { ok } from '../../../http-kit/envelope.ts';
import { SECURE_HEADERS } from '../../../http-kit/secure-headers.ts';
import type { AppEnv } from '../types.ts';

const NO_STORE = { 'cache-control': 'no-store' };

/** `/api/v1/security`: the audit, the effective configuration and recommendations (protected). */
export function securityRoutes(security: SecurityService) {
  const app = new Hono<AppEnv>();
  app.get('/audit', async (c) => ok(c, await security.audit(), 200, NO_STORE));
  app.get('/config', async (c) =>
    ok(c, { ...(await security.config()), secureHeaders: SECURE_HEADERS }, 200, NO_STORE),
  );
  app.get('/recommendations', async (c) => ok(c, await security.recommendations(), 200, NO_STORE));
  return app;
}
