import type { HttpTimeouts } from '../../core/security/types.ts';
import type { RelayLimits } from '../service/types.ts';

/**
 * What the relay's Node server takes (`startRelay`). Its root reads it from the environment
 * (deploy/shared/config/relay.ts: docs/reference/configuration.md and docs/reference/relay.md list every variable);
 * the relay itself reads no environment.
 */
export interface RelayConfig {
  host: string;
  port: number;
  /** RELAY_PUBLIC_BASE_URL; null means `http://<host>:<port>` of the listening socket. */
  publicBaseUrl: string | null;
  /** REDIS_URL; null selects the in-memory queue (single instance). */
  redisUrl: string | null;
  redisPrefix: string;
  /** RELAY_QUEUE_KEY: when set, payloads are AES-GCM sealed before they enter the queue store. */
  queueKey: string | null;
  /** RELAY_QUEUE_PLAIN: the operator's explicit opt-out of sealing on Redis (otherwise a Redis relay needs a key). */
  plainQueue: boolean;
  /** Believe X-Forwarded-For for client addresses (only behind a proxy you run). */
  trustProxy: boolean;
  /**
   * HOT_ROUTES: relayed GETs and HEADs through a tunnel held here skip the Hono app (the hot
   * route, relay/http/routes/proxy.ts `proxyHot`); false: every request takes the app. Default on.
   */
  hotRoutes?: boolean;
  /** How long stop() lets waiting clients finish before closing their connections, in ms. */
  shutdownGraceMs: number;
  limits: RelayLimits;
  /** RELAY_HEADERS_TIMEOUT_MS, RELAY_REQUEST_TIMEOUT_MS, RELAY_KEEP_ALIVE_TIMEOUT_MS. */
  timeouts: HttpTimeouts;
}
