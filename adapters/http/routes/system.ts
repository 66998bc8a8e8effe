import { Hono } from 'hono';
import { DomainError } from '../../../core/errors.ts';
import { buildSetupPayload } from '../../../core/setup.ts';
import { serverUrl } from '../client.ts';
import { ok } from '../envelope.ts';
import type { AppDeps, AppEnv } from '../types.ts';

/** Health and setup (public), system info (protected), and the answers for retired routes. */
export function systemRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  const startedAt = deps.clock.now();
  const uptimeSeconds = () => Math.round((deps.clock.now() - startedAt) / 1000);

  app.get('/health', (c) => {
    const s = deps.notes.status();
    return ok(c, {
      status: s.state === 'ready' ? 'ok' : 'starting',
      version: deps.version,
      uptimeSeconds: uptimeSeconds(),
      notes: s.notes,
      index: { state: s.state, done: s.done, total: s.total },
    });
  });

  const setup = deps.setup;
  if (setup) {
    app.get('/system/setup', async (c) => {
      const svc = setup.service;
      const relayMode = setup.config.pairingMode === 'relay';
      const relayCode = relayMode && !svc.setupComplete ? (await svc.pairCode()).code : null;
      const apiKey = svc.firstKeyPlain() ?? svc.firstKeyRedacted();
      c.header('Cache-Control', 'no-store');
      const snap = { serverId: svc.serverId, setupComplete: svc.setupComplete, apiKey, relayCode };
      return ok(c, buildSetupPayload(setup.config, snap, serverUrl(c, deps)));
    });
    app.get('/system/info', (c) => {
      const s = deps.notes.status();
      return ok(c, {
        version: deps.version,
        runtime: deps.runtime ?? { name: 'unknown', version: 'unknown' },
        uptimeSeconds: uptimeSeconds(),
        notes: { count: s.notes, bytes: s.bytes, index: s.state },
        auth: { mode: setup.config.authMode, setupComplete: setup.service.setupComplete },
        pairing: { mode: setup.config.pairingMode, relayUrl: setup.config.relayUrl },
        relay: setup.relayStatus?.() ?? { state: 'disabled' },
      });
    });
  }

  app.get('/agent/tools', () => {
    throw new DomainError('GONE', 'GET /api/v1/agent/tools was replaced by GET /api/v1/agent/status.');
  });
  app.post('/folders', () => {
    throw new DomainError('GONE', 'POST /api/v1/folders was replaced by GET /api/v1/folders/tree/:path.');
  });
  return app;
}
