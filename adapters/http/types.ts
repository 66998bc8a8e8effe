import type { Context } from 'hono';
import type { Agent } from '../../core/agent/agent.ts';
import type { Jwt } from '../../core/auth/jwt.ts';
import type { OAuthService } from '../../core/auth/oauth.ts';
import type { AuthService } from '../../core/auth/service.ts';
import type { ChannelService } from '../../core/channels/service.ts';
import type { FileService } from '../../core/files/service.ts';
import type { Live } from '../../core/live/service.ts';
import type { ChangeFeed } from '../../core/notes/change-feed.ts';
import type { NoteService } from '../../core/notes/service.ts';
import type { PeopleService } from '../../core/people/service.ts';
import type { SsoProvider } from '../../core/people/sso.ts';
import type { PluginManager } from '../../core/plugins/manager.ts';
import type { Authenticator, Clock, Logger, Principal } from '../../core/ports.ts';
import type { PublicationService } from '../../core/publish/service.ts';
import type { Retrieval } from '../../core/search/retrieval.ts';
import type { SemanticStatus } from '../../core/search/semantic/semantic-index.ts';
import type { SecurityService } from '../../core/security/service.ts';
import type { SetupConfig } from '../../core/setup.ts';
import type { FrameStats } from './frame.ts';
import type { ListStore } from './list/persisted-list.ts';
import type { NoteCache } from './note-cache.ts';

/** Where the built client UI (client-link/dist) comes from; runtime-specific. */
export interface ClientAssets {
  /** Bytes of `name` (`index.html`, `favicon.svg`, `assets/<hashed file>`); null when absent. */
  get(name: string): Promise<Uint8Array | null>;
}

export interface ClientUiDeps {
  assets: ClientAssets;
  /** The relay this server pairs through, written into the page for links that name none. */
  relayUrl?: () => string | null;
}

/** The services one request may use, as its principal sees them (adapters/http/scoped.ts). */
export interface RequestView {
  notes: NoteService;
  /** Absent when the server has no attachments (its routes are not mounted then). */
  files: FileService | undefined;
  retrieval: Retrieval;
  /** The key may read notes (notes:read): MCP lists its read tools and resources. */
  read: boolean;
  /** The key may write notes (notes:write): MCP lists its write tools. */
  write: boolean;
}

/** Variables set on the Hono context by the app's middleware. */
export type AppEnv = {
  Variables: {
    requestId: string;
    principal?: Principal;
    /**
     * Checks this request's credential again, later: its principal as of then (throws when it no
     * longer opens anything). What a live editor's ticket keeps (core/live).
     */
    recheck?: () => Promise<Principal>;
    /** What the principal may see and do, set once by `scopedView` (adapters/http/scoped.ts). */
    view?: RequestView;
    /** Security, request id and CORS headers of this request (adapters/http/frame.ts). */
    baseHeaders?: Record<string, string>;
    /** False: answers are never compressed here (AppDeps.compress). */
    compress?: boolean;
  };
};

/** Setup, keys and pairing; without it the auth routes are not mounted. */
export interface SetupDeps {
  service: AuthService;
  jwt: Jwt | null;
  config: SetupConfig;
  /** Canonical server URL (PUBLIC_URL); null means "from the request". */
  publicUrl: string | null;
  /** State of the relay connection, for system/info. */
  relayStatus?: () => unknown;
}

/** Limits on authentication attempts per client address. */
export interface RateLimits {
  /** Requests per minute to auth/verify, auth/link and auth/token. */
  authPerMinute: number;
  /** Failed authentications allowed per window before 429. */
  failures: number;
  /** Length of the failure window in seconds. */
  failureWindowSeconds: number;
  /** Calls to the public channel webhooks per minute (default 120). */
  webhookPerMinute?: number;
}

/** Everything `createApp` needs. */
export interface AppDeps {
  notes: NoteService;
  /** Search in every mode and related notes (core/search); absent: lexical search over `notes`. */
  retrieval?: Retrieval;
  /** Semantic search's embedding progress, shown in health; absent: semantic search is off. */
  semantic?: { status(): SemanticStatus };
  version: string;
  clock: Clock;
  logger: Logger;
  /** Checks protected routes; absent means every route is open (tests, embedding). */
  authenticator?: Authenticator;
  setup?: SetupDeps;
  /**
   * Exact-match allowlist of browser origins; absent or empty means no CORS headers. Read on
   * every request, so a root may add its own origin once it knows its port.
   */
  corsOrigins?: string[];
  /** Absent or false: no rate limiting. */
  rateLimits?: RateLimits | false;
  /** Believe X-Forwarded-* headers (only behind a proxy you run). */
  trustProxy?: boolean;
  /** The socket address of the client; runtime-specific. */
  socketAddress?: (c: Context) => string | undefined;
  /** Runtime name and version for system/info. */
  runtime?: { name: string; version: string };
  /** Request body limit in bytes (default 10 MiB). */
  maxBodyBytes?: number;
  /** Identifies this process in list ETags (default: random). */
  instanceId?: string;
  /** The agent; absent means the agent routes are not mounted. */
  agent?: Agent;
  /** The built client UI, served at `/link`, `/workspace` and `/assets/*`; absent means not served. */
  client?: ClientUiDeps;
  /** The channels; absent means the channel routes are not mounted. */
  channels?: ChannelService;
  /** The plugin manager; absent means the plugin routes are not mounted. */
  plugins?: PluginManager;
  /** The security audit; absent means the security routes are not mounted. */
  security?: SecurityService;
  /** Budget of the encoded-note cache of `GET /notes/:path` in bytes (NOTE_CACHE_BYTES; default 64 MiB). */
  noteCacheBytes?: number;
  /**
   * False: no hot route is mounted (adapters/http/hot.ts); every request takes the routes, the
   * plain path. Default on (HOT_ROUTES).
   */
  hotRoutes?: boolean;
  /** The encoded-note cache itself, when a runtime's fast lane shares it; absent: one of noteCacheBytes. */
  noteCache?: NoteCache;
  /**
   * Where the gzip'd note list is kept across restarts (`list-gzip.bin` next to the index
   * snapshot: `stateListStore(state)`, adapters/http/list/persisted-list.ts); absent: not kept.
   */
  listStore?: ListStore;
  /**
   * False: the whole note list is encoded whole once per index version (the plain way), not kept
   * in deflated chunks nor across restarts (adapters/http/list/full-list.ts). Default on (LIST_CHUNKS).
   */
  listChunks?: boolean;
  /**
   * False where the platform compresses answers itself and would compress pre-compressed bytes
   * again (workerd: a `Content-Encoding` header makes the runtime encode the body). Default true.
   */
  compress?: boolean;
  /** Counts every request (for tests and benchmarks); absent: a private counter. */
  frameStats?: FrameStats;
  /** The vault's attachments; absent means `/api/v1/files` is not mounted and the tree lists notes only. */
  files?: FileService;
  /** Live editing (core/live); absent: `/api/v1/live` is not mounted. */
  live?: Live;
  /** The change feed; absent means `GET /api/v1/events` is not mounted. */
  feed?: ChangeFeed;
  /** Milliseconds between heartbeats on an event stream (default 15,000). */
  heartbeatMs?: number;
  /** The MCP endpoint lists and allows the write tools (MCP_WRITE; default true). */
  mcpWrite?: boolean;
  /** The largest answer to one MCP POST (MCP_MAX_ANSWER_BYTES; default 4 MiB). */
  mcpMaxAnswerBytes?: number;
  /** Quire as the OAuth authorization server of `/mcp`; absent: no OAuth routes. */
  oauth?: OAuthService;
  /** The people (accounts, shares, sessions); absent: keys only, no people routes. */
  people?: PeopleService;
  /** The OpenID Connect provider people may sign in with (adapters/sso/oidc.ts); absent: none. */
  sso?: SsoProvider;
  /** Notes and folders published read-only at `/p/<id>/`; absent: no publishing routes. */
  publications?: PublicationService;
  /** Event streams open at once per credential (EVENTS_STREAMS_PER_KEY; default 8). */
  eventsStreamsPerKey?: number;
}
