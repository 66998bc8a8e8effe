import { Hono } from 'hono';
import { DomainError } from '../../../core/errors.ts';
import { buildSetupPayload } from '../../../core/setup.ts';
import { ok } from '../../../http-kit/envelope.ts';
import { serverUrl } from '../client.ts';
import { sealedResponse } from '../frame.ts';
import { JSON_TYPE } from '../json-answer.ts';
import type { AppDeps, AppEnv } from '../types.ts';

const encoder = new TextEncoder();
const HEALTH_HEADERS = { 'Content-Type': JSON_TYPE };

/**
 * The encoded body of `GET /api/v1/health`. O(1): the note service keeps its counts, and the body
 * is encoded again only when one of its values changes (uptime in seconds included).
 */
export function createHealthBody(
  deps: Pick<AppDeps, 'notes' | 'version' | 'clock' | 'semantic'>,
): () => Uint8Array<ArrayBuffer> {
  const startedAt = deps.clock.now();
  let health: { key: string; body: Uint8Array<ArrayBuffer> } = { key: '', body: new Uint8Array() };
  return () => {
    const s = deps.notes.status();
    const up = Math.round((deps.clock.now() - startedAt) / 1000);
    // The index's own bytes, in whole KiB so the body is not encoded anew for every byte.
    const m = s.state === 'ready' ? deps.notes.memory?.() : undefined;
    const kib = (n: number) => Math.round(n / 1024) * 1024;
    const e = deps.semantic?.status();
    const h = deps.notes.history?.stats();
    const key = `${up}|${s.state}|${s.notes}|${s.done}|${s.total}|${e ? `${e.state}|${e.done}|${e.total}` : ''}|${h ? `${h.bytes}|${h.versions}|${h.trash}` : ''}|${m ? kib(m.total) : ''}`;
    if (health.key !== key) {
      const data = {
        status: s.state === 'ready' ? 'ok' : 'starting',
        version: deps.version,
        uptimeSeconds: up,
        notes: s.notes,
        index: {
          state: s.state,
          done: s.done,
          total: s.total,
          // Estimated bytes of the index's own parts (optional: absent while indexing).
          ...(m
            ? {
                bytes: {
                  notes: kib(m.notes),
                  links: kib(m.links),
                  search: kib(m.search),
                  summaries: kib(m.summaries),
                  total: kib(m.total),
                },
              }
            : {}),
        },
        // Semantic search: off, or the background embedding's progress in passages. Health is
        // public: the provider's error text (its address) stays in the log.
        embeddings: e ? { state: e.state, done: e.done, total: e.total } : { state: 'off' },
        // History and trash: their size, or off.
        history: h ? { state: 'on', bytes: h.bytes, versions: h.versions, trash: h.trash } : { state: 'off' },
      };
      health = { key, body: encoder.encode(JSON.stringify({ success: true, data })) };
    }
    return health.body;
  };
}

/** Health and setup (public), system info (protected), and the answers for retired routes. */
export function systemRoutes(deps: AppDeps, healthBody = createHealthBody(deps)) {
  const app = new Hono<AppEnv>();
  const startedAt = deps.clock.now();
  const uptimeSeconds = () => Math.round((deps.clock.now() - startedAt) / 1000);

  // GET is the hot route's (adapters/http/hot.ts, the same body); HEAD comes here.
  app.get('/health', (c) => sealedResponse(c, 200, healthBody(), HEALTH_HEADERS));

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
