/**
 * Every environment variable of Quire, once: its kind, default and bounds (from which read.ts
 * derives its valibot schema), what it means, which programs read it (`for`: the note server when
 * unset) and how it bears on the security audit. The readers (server.ts, relay.ts, agent.ts,
 * embeddings.ts) read through `readVariables` over a program's view of it, and docs/reference/configuration.md
 * is generated from it (`npm run docs:config`; a test fails when the page drifts).
 */
import { AUDIT_THRESHOLDS } from '../../../core/security/thresholds.ts';
import { DEFAULT_LIMITS, type RelayLimits } from '../../../relay/service/types.ts';
import { LOG_LEVELS, type VariableSpec } from './read.ts';

export type { VariableSpec };

/**
 * How a variable bears on the security audit: which direction makes the server less safe (the
 * audit's score never rises that way; tests/security/audit-env.property.test.ts), and from where
 * the audit reports it. `audit-threshold`: the audit's own policy (lowering it never raises the score).
 */
export interface AuditEffect {
  weaker: 'higher' | 'lower' | 'on' | 'off' | 'value' | 'neutral' | 'audit-threshold';
  /** For `value`: a less safe value. */
  value?: string;
  /** Where the audit starts reporting, in words (shown on docs/reference/configuration.md). */
  threshold?: string;
}

/** The programs that read variables. */
export type Program = 'server' | 'relay' | 'cli';

/** What the page says of a variable besides its group. */
type Doc = { meaning: string; accepts?: string; audit?: AuditEffect };
/** A documented variable as one program sees it: its group on the page, what it means, and how it is read. */
export type Variable = VariableSpec & Doc & { group: string };

/** An entry: `for` the programs reading it (else its group's), `relay` what the relay's page says instead. */
type Entry = VariableSpec &
  Doc & {
    for?: readonly Program[];
    relay?: Partial<Pick<Variable, 'group' | 'meaning' | 'shown'>> & { def?: string };
    /** A relay limit: the RelayLimits field it sets (its default is DEFAULT_LIMITS'). */
    limit?: keyof RelayLimits;
  };

/** A relay limit (a whole number from 1 up), defaulting to DEFAULT_LIMITS. */
const limit = <K extends keyof RelayLimits>(key: K, meaning: string, shown?: string) =>
  ({
    kind: 'int',
    def: DEFAULT_LIMITS[key],
    min: 1,
    max: 2 ** 31,
    meaning,
    limit: key,
    ...(shown ? { shown } : {}),
  }) as const;

/**
 * Every variable by its group on the page (a group's `for`: the programs reading its variables,
 * else the note server), in the order the page lists them per program.
 */
export const VARIABLES = {
  Server: {
    PORT: {
      kind: 'int',
      def: 3000,
      min: 0,
      max: 65535,
      meaning: 'Listening port (`0` picks a free one; the log says which).',
      audit: { weaker: 'neutral' },
    },
    HOST: {
      kind: 'host',
      def: '127.0.0.1',
      meaning: 'Listening address (`0.0.0.0` for every interface, e.g. in a container).',
      audit: {
        weaker: 'value',
        value: '0.0.0.0',
        threshold: 'a non-loopback address without TLS declared is high; with mode none, critical',
      },
    },
    DATA_DIR: {
      kind: 'path',
      def: './data',
      meaning:
        'Server state: `credentials.json`, `index-snapshot.bin`, `index-journal.log`, `list-gzip.bin` (the index and the gzip list, kept for a warm start), `channels.json`, `plugins.json` (mode 0600).',
      audit: {
        weaker: 'neutral',
        threshold: 'files readable by others are high (the folder is created 0700)',
      },
    },
    VAULT_DIR: {
      kind: 'path',
      shown: '`$DATA_DIR/notes`',
      meaning: 'The notes: any folder of `.md` files, e.g. an existing Obsidian vault.',
      audit: { weaker: 'neutral' },
    },
    LOG_LEVEL: {
      for: ['server', 'relay'],
      relay: { group: 'Relay', meaning: 'JSON log lines; never a key or pairing code.' },
      kind: 'enum',
      values: LOG_LEVELS,
      def: 'info',
      meaning:
        'JSON log lines with a request id; keys and secrets are never logged. Lines go to stdout in batches (at most 25 ms late; warnings and errors at once).',
      audit: { weaker: 'neutral' },
    },
    HOT_ROUTES: {
      for: ['server', 'relay'],
      relay: {
        group: 'Relay',
        meaning:
          'Relayed `GET`s and `HEAD`s through a tunnel held here are answered straight from the tunnel frame (the hot route). `0`: every request takes the Hono app, the plain path.',
      },
      kind: 'bool',
      def: true,
      meaning:
        'Health and cached note reads by a full-access key are answered before the Hono app, on the socket and at the server end of the relay tunnel (the hot routes, measured in decision 0027). `0`: every request takes the Hono app, the plain path; the answers are the same.',
      audit: { weaker: 'neutral' },
    },
    LIST_CHUNKS: {
      kind: 'bool',
      def: true,
      meaning:
        'The whole note list is kept in deflated chunks (a write re-encodes only its chunk) and kept across restarts (a warm start answers the first list without building it; decision 0032). `0`: it is encoded whole once per index version, the plain way; the answers are the same JSON.',
      audit: { weaker: 'neutral' },
    },
    MAX_BODY_BYTES: {
      kind: 'int',
      def: 10 * 1024 * 1024,
      min: 1024,
      max: 1024 * 1024 * 1024,
      shown: '`10485760` (10 MiB)',
      meaning: 'Request body limit; above it the answer is 413.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.maxBodyBytes} (64 MiB) is low` },
    },
    NOTE_CACHE_BYTES: {
      kind: 'int',
      def: 64 * 1024 * 1024,
      min: 0,
      max: 16 * 1024 * 1024 * 1024,
      shown: '`67108864` (64 MiB)',
      meaning:
        'Budget of the cache of encoded `GET /api/v1/notes/:path` answers (least recently used out first; `0` turns it off).',
      audit: { weaker: 'neutral' },
    },
    MAX_FILE_BYTES: {
      kind: 'int',
      def: 100 * 1024 * 1024,
      min: 1024,
      max: 64 * 1024 * 1024 * 1024,
      shown: '`104857600` (100 MiB)',
      meaning:
        'Largest attachment upload (`PUT /api/v1/files/:path`), streamed to disk; above it the answer is 413 and nothing is kept.',
      audit: { weaker: 'neutral' },
    },
    HISTORY: {
      kind: 'bool',
      def: true,
      meaning:
        'Keep the history and the trash in `DATA_DIR/history` (docs/reference/history.md): every change keeps the version before it, deletes go to the trash. Off: deletes are for good.',
      audit: { weaker: 'neutral' },
    },
    HISTORY_MAX_AGE_DAYS: {
      kind: 'int',
      def: 90,
      min: 1,
      max: 36_500,
      meaning: 'Versions older than this are pruned (in the background, hourly).',
      audit: { weaker: 'neutral' },
    },
    HISTORY_MAX_BYTES: {
      kind: 'int',
      def: 1024 ** 3,
      min: 1024 * 1024,
      max: 1024 ** 4,
      shown: '`1073741824` (1 GiB)',
      meaning: 'Past this size of kept versions (compressed), the oldest are pruned first.',
      audit: { weaker: 'neutral' },
    },
    HISTORY_MAX_FILE_BYTES: {
      kind: 'int',
      def: 10 * 1024 * 1024,
      min: 0,
      max: 64 * 1024 * 1024 * 1024,
      shown: '`10485760` (10 MiB)',
      meaning:
        'Largest attachment whose versions (and trash copy) are kept; a larger one is deleted for good.',
      audit: { weaker: 'neutral' },
    },
    TRASH_DIR: {
      kind: 'enum',
      values: ['data', 'vault'],
      def: 'data',
      meaning:
        "Where deleted notes and files go: `data` keeps them in `DATA_DIR/history` only; `vault` also puts a copy in the vault's `.trash/` folder (Obsidian's convention), removed when the item is restored or purged. Needs HISTORY (docs/reference/history.md).",
      audit: { weaker: 'neutral' },
    },
    TRASH_RETENTION_DAYS: {
      kind: 'int',
      def: 30,
      min: 1,
      max: 36_500,
      meaning: 'Items stay in the trash this long, then are deleted for good (in the background).',
      audit: { weaker: 'neutral' },
    },
    RECONCILE_SECONDS: {
      kind: 'int',
      def: 300,
      min: 5,
      max: 86_400,
      meaning: 'How often the whole vault is compared with the index (a safety net for missed file events).',
      audit: { weaker: 'neutral' },
    },
    EVENTS_RING_SIZE: {
      kind: 'int',
      def: 10_000,
      min: 10,
      max: 1_000_000,
      meaning:
        'Change feed (`GET /api/v1/events`): how many recent events are kept for `Last-Event-ID` / `after=` resumes; an older id gets `reset`.',
      audit: { weaker: 'neutral' },
    },
    LIVE_DEBOUNCE_MS: {
      kind: 'int',
      def: 1000,
      min: 50,
      max: 2000,
      meaning:
        'Live editing: quiet milliseconds after the last keystroke before the live document is written to its file (and kept in the history).',
      audit: { weaker: 'neutral' },
    },
    LIVE_RECHECK_MS: {
      kind: 'int',
      def: 5000,
      min: 100,
      max: 60_000,
      meaning:
        "Live editing: how often every live editor's credential is checked again, for what changes outside this server's API (a key revoked by the CLI while it runs, a session that expired). A key, person or share changed through the API is checked at once.",
      audit: { weaker: 'neutral' },
    },
    EVENTS_STREAMS_PER_KEY: {
      kind: 'int',
      def: 8,
      min: 1,
      max: 10_000,
      meaning:
        'Change feed: event streams (`text/event-stream`) open at once per key or token subject; one more answers 429. The long-poll form is not counted.',
      audit: { weaker: 'neutral' },
    },
    MCP_MAX_ANSWER_BYTES: {
      kind: 'int',
      def: 4 * 1024 * 1024,
      min: 4096,
      max: 256 * 1024 * 1024,
      meaning:
        'MCP endpoint: the largest answer to one POST (a message or a batch of at most 32); a message that would go beyond it is answered with a JSON-RPC error instead.',
      audit: { weaker: 'neutral' },
    },
    MCP_WRITE: {
      kind: 'bool',
      def: true,
      meaning:
        'MCP endpoint (`/mcp`): list and allow the write tools (create, update, patch, move, delete). Off: read-only tools only.',
      audit: { weaker: 'neutral' },
    },
    INDEX_CACHE_SAVE_SECONDS: {
      kind: 'int',
      def: 10,
      min: 0,
      max: 3_600,
      meaning: 'Workers only: seconds after a write until the index cache is saved to KV.',
      audit: { weaker: 'neutral' },
    },
    FSYNC: {
      kind: 'bool',
      def: true,
      shown: 'on',
      meaning:
        'Each note write fsyncs the file and its folder before answering (power-loss safe). `0` keeps the atomic rename (never a torn note) but may lose the last second of writes on power loss, for faster writes (both measured in BENCHMARKS.md).',
      audit: { weaker: 'neutral' },
    },
    SHUTDOWN_GRACE_MS: {
      kind: 'int',
      def: 10_000,
      min: 0,
      max: 600_000,
      meaning: 'On SIGTERM: how long requests in flight may take to finish before they are cut.',
      audit: { weaker: 'neutral' },
    },
  },
  Auth: {
    SERVICE_AUTH_MODE: {
      kind: 'enum',
      values: ['api-key', 'jwt', 'none'],
      def: 'api-key',
      meaning: '`api-key` (X-Service-Key), `jwt` (Bearer tokens) or `none` (development only).',
      audit: { weaker: 'value', value: 'none', threshold: '`none` is critical' },
    },
    ALLOW_INSECURE_NO_AUTH: {
      kind: 'bool',
      def: false,
      shown: 'off',
      meaning:
        'Lets mode `none` start although another machine could reach it (a non-loopback `HOST`, any relay pairing: `RELAY_URL`, `RELAY_PUBLIC_BASE_URL` or the embedded relay, even on loopback; `TRUST_PROXY`). Without it, mode `none` with no relay variable set (`PAIRING_MODE`, `RELAY_URL`, `RELAY_PUBLIC_BASE_URL`, `RELAY_HOST`, `RELAY_PORT`) starts in open-port pairing (one log line says so).',
      audit: { weaker: 'on', threshold: 'with mode none, reaching the server from outside is critical' },
    },
    JWT_SECRET: {
      kind: 'secret',
      shown: '—',
      meaning: 'jwt mode: an HS256 secret of 32+ characters (lets the server issue tokens).',
      audit: { weaker: 'neutral' },
    },
    JWT_JWKS_URL: {
      kind: 'url',
      shown: '—',
      meaning: 'jwt mode: a JWKS whose keys verify tokens issued elsewhere.',
      audit: { weaker: 'neutral' },
    },
    JWT_ISSUER: {
      kind: 'text',
      shown: '—',
      meaning: 'jwt mode: the required `iss` claim.',
      audit: { weaker: 'neutral' },
    },
    JWT_AUDIENCE: {
      kind: 'text',
      shown: '—',
      meaning: 'jwt mode: the required `aud` claim.',
      audit: { weaker: 'neutral' },
    },
    JWT_TTL_SECONDS: {
      kind: 'int',
      def: 900,
      min: 30,
      max: 86_400,
      meaning: 'jwt mode: lifetime of the tokens `POST /api/v1/auth/token` issues.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.jwtTtlSeconds} is low` },
    },
    OIDC_ISSUER: {
      kind: 'url',
      shown: '—',
      meaning:
        'Single sign-on for people: the OpenID Connect issuer (HTTPS; plain HTTP on loopback only). A person links their identity from an invite, then signs in with it; nobody gets an account by signing in. Register `<PUBLIC_URL>/api/v1/session/sso/callback` as the redirect address. Not through the relay.',
      audit: { weaker: 'neutral' },
    },
    OIDC_CLIENT_ID: {
      kind: 'text',
      shown: '—',
      meaning: 'Single sign-on: the client id Quire has at the issuer (needed with `OIDC_ISSUER`).',
      audit: { weaker: 'neutral' },
    },
    OIDC_CLIENT_SECRET: {
      kind: 'secret',
      shown: '—',
      meaning:
        'Single sign-on: the client secret (sent as `client_secret_post`); absent: a public client (PKCE only).',
      audit: { weaker: 'neutral' },
    },
  },
  'Pairing and relay': {
    PAIRING_MODE: {
      kind: 'enum',
      values: ['relay', 'open-port'],
      def: 'relay',
      meaning: '`relay` (clients reach the server through a relay) or `open-port` (directly).',
      audit: { weaker: 'value', value: 'relay' },
    },
    RELAY_URL: {
      kind: 'url',
      shown: 'embedded relay',
      meaning: 'A relay to register with; unset runs one inside the server process.',
      audit: {
        weaker: 'value',
        value: 'http://relay.example.com',
        threshold: 'plain http to another host is high',
      },
    },
    RELAY_TRANSPORT: {
      kind: 'enum',
      values: ['tunnel', 'poll'],
      def: 'tunnel',
      meaning:
        "How the server reaches its relay: `tunnel` (one WebSocket, many requests at once) or `poll` (the spec's register/pull/respond, for a relay without the tunnel endpoint).",
      audit: { weaker: 'neutral' },
    },
    RELAY_HOST: {
      for: ['server', 'relay'],
      relay: { group: 'Relay', def: '0.0.0.0', shown: undefined, meaning: 'Listening address.' },
      kind: 'host',
      shown: '`HOST`',
      meaning: 'Listening address of the embedded relay.',
      audit: {
        weaker: 'value',
        value: '0.0.0.0',
        threshold: 'a non-loopback address over plain http is high',
      },
    },
    RELAY_PORT: {
      for: ['server', 'relay'],
      relay: { group: 'Relay', meaning: 'Listening port (`0`: any free port).' },
      kind: 'int',
      def: 8787,
      min: 0,
      max: 65535,
      meaning: 'Port of the embedded relay.',
      audit: { weaker: 'neutral' },
    },
    RELAY_PUBLIC_BASE_URL: {
      for: ['server', 'relay'],
      relay: {
        group: 'Relay',
        shown: 'the listening address',
        meaning:
          'Base given to clients: `serverUrl` is `<base>/r/<serverId>`. Set it (a warning says when it is not).',
      },
      kind: 'url',
      shown: '—',
      meaning:
        "The relay as clients reach it: the embedded relay behind TLS, say, or `RELAY_URL`'s public address when the server reaches it internally (Compose).",
      audit: {
        weaker: 'value',
        value: 'http://relay.example.com',
        threshold: 'plain http to another host is high',
      },
    },
    PAIRING_CODE_TTL_SECONDS: {
      kind: 'int',
      def: 900,
      min: 30,
      max: 86_400,
      meaning: 'Lifetime of a pairing code.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.codeTtlSeconds} is low` },
    },
  },
  'Addresses and browsers': {
    PUBLIC_URL: {
      kind: 'url',
      shown: 'from the request',
      meaning: 'Canonical server URL for `server.url` and every link.',
      audit: { weaker: 'value', value: 'http://notes.example.com' },
    },
    TRUST_PROXY: {
      kind: 'bool',
      def: false,
      shown: 'off',
      meaning: 'Believe `X-Forwarded-Proto/Host/For` (only behind your own proxy).',
      audit: { weaker: 'on', threshold: 'on with a non-loopback HOST is medium' },
    },
    CORS_ORIGINS: {
      kind: 'origins',
      shown: 'the client origins below',
      meaning: "Comma-separated exact origins; `*` is refused. The server's own origins are always added.",
      audit: { weaker: 'value', value: 'http://app.example.com', threshold: 'a plain-http origin is low' },
    },
    CLIENT_URL: {
      kind: 'url',
      shown: "the server's own URL",
      meaning: 'Base of `links.connect.hostedClient`.',
      audit: { weaker: 'value', value: 'http://app.example.com' },
    },
    TEST_CLIENT_URL: {
      kind: 'url',
      shown: "the server's own URL",
      meaning: 'Base of `links.connect.testHostedClient`.',
      audit: { weaker: 'value', value: 'http://app.example.com' },
    },
    LOCAL_DEV_UI_URL: {
      kind: 'url',
      def: 'http://localhost:5173',
      meaning: 'Base of `links.connect.localDevUi` (`npm run dev:client`).',
      audit: { weaker: 'value', value: 'http://dev.example.com' },
    },
  },
  'Rate limits': {
    RATE_LIMIT: {
      kind: 'bool',
      def: true,
      shown: 'on',
      meaning: '`0` turns rate limiting off.',
      audit: { weaker: 'off', threshold: 'off is medium (and low for the loose limits)' },
    },
    RATE_LIMIT_AUTH_PER_MINUTE: {
      kind: 'int',
      def: 30,
      min: 1,
      max: 100_000,
      meaning: 'Calls to auth/verify, link and token per client address per minute.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.authPerMinute} is low` },
    },
    RATE_LIMIT_FAILURES: {
      kind: 'int',
      def: 20,
      min: 1,
      max: 100_000,
      meaning: 'Failed authentications per client address per window before 429.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.failures} is low` },
    },
    RATE_LIMIT_FAILURE_WINDOW_SECONDS: {
      kind: 'int',
      def: 600,
      min: 1,
      max: 86_400,
      meaning: 'The failure window.',
      audit: { weaker: 'lower', threshold: `below ${AUDIT_THRESHOLDS.failureWindowSeconds} is low` },
    },
    RATE_LIMIT_WEBHOOK_PER_MINUTE: {
      kind: 'int',
      def: 120,
      min: 1,
      max: 100_000,
      meaning: 'Calls to the public channel webhooks per client address per minute.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.webhookPerMinute} is low` },
    },
  },
  'Security audit and time-outs': {
    TLS_TERMINATED_BY_PROXY: {
      kind: 'bool',
      def: false,
      shown: 'off',
      meaning: 'Declares a TLS-terminating proxy in front (the audit then accepts a public `HOST`).',
      audit: { weaker: 'off' },
    },
    KEY_MAX_AGE_DAYS: {
      kind: 'int',
      def: 180,
      min: 1,
      max: 36_500,
      meaning: 'The audit reports API keys older than this.',
      audit: { weaker: 'audit-threshold' },
    },
    DEVICE_KEY_IDLE_DAYS: {
      kind: 'int',
      def: 90,
      min: 1,
      max: 36_500,
      meaning: 'The audit reports device keys unused for longer than this.',
      audit: { weaker: 'audit-threshold' },
    },
    HEADERS_TIMEOUT_MS: {
      kind: 'int',
      def: 20_000,
      min: 1_000,
      max: 600_000,
      meaning: 'Time a client may take to send its headers (then 408); at most `REQUEST_TIMEOUT_MS`.',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.headersMs} is low` },
    },
    REQUEST_TIMEOUT_MS: {
      kind: 'int',
      def: 120_000,
      min: 1_000,
      max: 3_600_000,
      meaning: 'Time a client may take to send its whole request (then 408).',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.requestMs} is low` },
    },
    KEEP_ALIVE_TIMEOUT_MS: {
      kind: 'int',
      def: 5_000,
      min: 1_000,
      max: 600_000,
      meaning: 'Idle keep-alive connections close after this (the embedded relay too).',
      audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.keepAliveMs} is low` },
    },
  },
  Agent: {
    AGENT_ENABLED: {
      kind: 'bool',
      def: true,
      shown: '`true`',
      meaning: '`false`: chat answers 503 `AGENT_DISABLED` (status still answers).',
      audit: { weaker: 'on' },
    },
    AGENT_PROVIDER: {
      kind: 'enum',
      values: ['local', 'openai', 'anthropic'],
      def: 'local',
      meaning: '`local` (offline rules), `openai` (any OpenAI-compatible endpoint) or `anthropic`.',
      audit: { weaker: 'value', value: 'openai', threshold: 'a remote provider is info' },
    },
    AGENT_MODEL: {
      kind: 'text',
      shown: '— (`anthropic`: `claude-sonnet-4-5`)',
      meaning: 'Model name; required for `openai`.',
      audit: { weaker: 'neutral' },
    },
    AGENT_BASE_URL: {
      kind: 'url',
      shown: "the provider's public API",
      meaning: 'e.g. `http://localhost:11434/v1` for Ollama.',
      audit: { weaker: 'value', value: 'https://llm.example.com/v1' },
    },
    AGENT_API_KEY: {
      kind: 'secret',
      shown: '—',
      meaning: 'Required for `anthropic` and for api.openai.com. Never logged or answered.',
      audit: { weaker: 'neutral' },
    },
    AGENT_TIMEOUT_MS: {
      kind: 'int',
      def: 60_000,
      min: 1_000,
      max: 600_000,
      meaning: 'Longest one chat may take.',
      audit: { weaker: 'neutral' },
    },
    AGENT_MAX_STEPS: {
      kind: 'int',
      def: 8,
      min: 1,
      max: 32,
      meaning: 'Most model calls (tool rounds) per chat.',
      audit: { weaker: 'neutral' },
    },
  },
  'Semantic search': {
    EMBEDDINGS_URL: {
      kind: 'url',
      shown: '— (off: lexical search only)',
      meaning:
        'An OpenAI-compatible embeddings endpoint you run or use (Ollama, llama.cpp, vLLM, OpenAI). A server root gets `/v1/embeddings`, a `/v1` base gets `/embeddings`, an address ending in `/embeddings` is used as given. Note text is sent there; Quire never downloads a model.',
      audit: { weaker: 'neutral' },
    },
    EMBEDDINGS_MODEL: {
      kind: 'text',
      shown: '—',
      meaning:
        'The embeddings model, e.g. `nomic-embed-text` (Ollama) or `text-embedding-3-small`; required with `EMBEDDINGS_URL`. Changing it re-embeds every passage.',
      audit: { weaker: 'neutral' },
    },
    EMBEDDINGS_API_KEY: {
      kind: 'secret',
      shown: '—',
      meaning:
        'Sent as a bearer token to `EMBEDDINGS_URL` (OpenAI and hosted providers). Never logged or answered.',
      audit: { weaker: 'neutral' },
    },
  },
  'Outbound requests': {
    EGRESS_ALLOW: {
      kind: 'list',
      shown: '—',
      meaning:
        'Comma-separated `host` or `host:port` destinations that plugins and channels may call although they are private or loopback addresses. The base URLs you set in `AGENT_BASE_URL`, `EMBEDDINGS_URL`, `TELEGRAM_API_BASE_URL` and `WHATSAPP_API_BASE_URL` are always allowed.',
      audit: { weaker: 'value', value: '10.0.0.5:8080', threshold: 'any entry is low' },
    },
  },
  Channels: {
    TELEGRAM_API_BASE_URL: {
      kind: 'url',
      def: 'https://api.telegram.org',
      meaning: "The Bot API (a channel's `settings.apiBaseUrl` overrides).",
      audit: { weaker: 'neutral' },
    },
    WHATSAPP_API_BASE_URL: {
      kind: 'url',
      def: 'https://graph.facebook.com/v21.0',
      meaning: 'The Graph API with its version (same override).',
      audit: { weaker: 'neutral' },
    },
  },
  Relay: {
    for: ['relay'],
    REDIS_URL: {
      kind: 'secret',
      prefixes: ['redis://', 'rediss://'],
      shown: 'unset',
      accepts: '`redis://` or `rediss://` URL (it may carry a password: never logged)',
      meaning: '`redis://` or `rediss://`. Unset: in-memory queue, one instance only.',
    },
    RELAY_REDIS_PREFIX: {
      kind: 'text',
      def: 'quire:relay:',
      meaning:
        'Prefix of every Redis key and channel (several relays may share one Redis with different prefixes).',
    },
    RELAY_QUEUE_KEY: {
      kind: 'secret',
      minLength: 32,
      hint: 'e.g. openssl rand -base64 32',
      shown: 'unset',
      meaning:
        'At least 32 characters, the same on every instance: payloads are sealed with AES-256-GCM before they enter the queue store. Required with `REDIS_URL` (unless `RELAY_QUEUE_PLAIN=1`).',
    },
    RELAY_QUEUE_PLAIN: {
      kind: 'bool',
      def: false,
      shown: '`0`',
      meaning:
        '`1`: run on Redis without `RELAY_QUEUE_KEY` (payloads stored unsealed). Without it, a relay on Redis refuses to start with no key.',
    },
    RELAY_TRUST_PROXY: {
      kind: 'bool',
      def: false,
      shown: '`0`',
      meaning:
        '`1`: take the client address from the last `X-Forwarded-For` hop (only behind a proxy you run).',
    },
    RELAY_HEADERS_TIMEOUT_MS: {
      kind: 'int',
      def: 20_000,
      min: 1_000,
      max: 600_000,
      meaning: 'Time a client may take to send its headers (then 408); at most `RELAY_REQUEST_TIMEOUT_MS`.',
    },
    RELAY_REQUEST_TIMEOUT_MS: {
      kind: 'int',
      def: 120_000,
      min: 1_000,
      max: 3_600_000,
      meaning: 'Time a client may take to send its whole request (then 408); long polls are not cut by it.',
    },
    RELAY_KEEP_ALIVE_TIMEOUT_MS: {
      kind: 'int',
      def: 5_000,
      min: 1_000,
      max: 600_000,
      meaning: 'Idle keep-alive connections close after this.',
    },
    RELAY_SHUTDOWN_GRACE_MS: {
      kind: 'int',
      def: 5_000,
      min: 0,
      max: 600_000,
      meaning: 'On SIGTERM: long polls end at once; waiting clients get this long to be answered.',
    },
  },
  'Relay limits': {
    for: ['relay'],
    RELAY_MAX_BODY_BYTES: limit(
      'maxBodyBytes',
      'Largest proxied request body (413) and largest relayed answer body.',
      '`10485760` (10 MiB)',
    ),
    RELAY_ANSWER_TIMEOUT_MS: limit(
      'answerTimeoutMs',
      'How long a client waits for its server; then 504 `RELAY_TIMEOUT`.',
    ),
    RELAY_PULL_WAIT_MS: limit('pullWaitMs', 'Longest (and default) long-poll wait of a pull.'),
    RELAY_MAX_BATCH: limit('maxBatch', 'Most requests one pull returns.'),
    RELAY_MAX_QUEUE: limit('maxQueue', 'Most live requests queued per server; above: 503 `NOT_READY`.'),
    RELAY_OFFLINE_AFTER_MS: limit(
      'offlineAfterMs',
      'A server silent this long is offline (503 `SERVER_OFFLINE`). Must exceed the pull wait.',
      'pull wait + 15 s (40 s)',
    ),
    RELAY_PAIR_CODE_TTL_MS: limit(
      'pairCodeTtlMs',
      'How long a pairing-code hash stays usable at the relay.',
      '`900000` (15 min)',
    ),
    RELAY_PAIR_FAILURES_PER_CLIENT: limit(
      'pairFailuresPerClient',
      'Failed exchanges per client address per window, then 429.',
    ),
    RELAY_PAIR_FAILURES_PER_SERVER: limit(
      'pairFailuresPerServer',
      'Failed exchanges per serverId per window, then 429.',
    ),
    RELAY_PAIR_FAILURE_WINDOW_MS: limit(
      'pairFailureWindowMs',
      'The failure window (fixed, starts at the first failure).',
    ),
    RELAY_NEW_SERVERS_PER_CLIENT_HOUR: limit(
      'newServersPerClientHour',
      'New serverIds one address may register per hour.',
    ),
    RELAY_RATE_PER_CLIENT: limit(
      'proxyPerClient',
      'Proxied requests (`/r/*`) one client address may send per rate window (per instance), then 429 with `Retry-After`.',
    ),
    RELAY_RATE_PER_SERVER: limit(
      'proxyPerServer',
      'Proxied requests one serverId may receive per rate window (per instance), then 429 with `Retry-After`.',
    ),
    RELAY_RATE_WINDOW_MS: limit('proxyWindowMs', 'The proxied-request rate window (fixed).'),
    RELAY_RATE_UNAUTH_PER_SERVER: limit(
      'proxyUnauthPerServer',
      'Proxied requests per serverId per rate window that carry no credential or are answered 401/403 (strangers cannot spend the server budget above), then 429.',
    ),
    RELAY_MAX_OPEN_PER_CLIENT: limit(
      'maxOpenPerClient',
      'Proxied requests one client address may have open at once, then 429 (decided before any body is read).',
    ),
    RELAY_MAX_INFLIGHT_BYTES_PER_CLIENT: limit(
      'maxInflightBytesPerClient',
      'Request-body bytes one client address may have in flight (declared `Content-Length` reserved up front), then 429.',
      '`33554432` (32 MiB)',
    ),
    RELAY_MAX_INFLIGHT_BYTES: limit(
      'maxInflightBytes',
      'Request-body bytes in flight on the whole instance, then 503 `NOT_READY`.',
      '`268435456` (256 MiB)',
    ),
    RELAY_BODY_TIMEOUT_MS: limit(
      'bodyTimeoutMs',
      'Longest a proxied request body may take to arrive, then 408 `REQUEST_TIMEOUT` and the connection closed.',
    ),
  },
  CLI: {
    for: ['cli'],
    QUIRE_URL: {
      kind: 'url',
      shown: '`http://HOST:PORT`',
      meaning: 'The server `quire setup`, `keys`, `doctor` and `mcp` talk to (`--url` overrides).',
    },
    QUIRE_API_KEY: {
      kind: 'secret',
      shown: '—',
      meaning:
        'The key `quire keys` and `quire mcp` send (a key, not a flag, so it stays out of `ps` and shell history).',
    },
    QUIRE_PUBLISH_PASSWORD: {
      kind: 'secret',
      shown: '—',
      meaning:
        'The password `quire publish <path> --password` gives the publication (read from here, not a flag, so it stays out of `ps` and shell history).',
    },
  },
} as const satisfies Record<
  string,
  { for?: readonly Program[] } & { [name: string]: Entry | readonly Program[] }
>;

type Groups = typeof VARIABLES;
type Names<G extends keyof Groups> = Exclude<keyof Groups[G], 'for'>;
type ReadBy<E, G> = E extends { for: readonly (infer P)[] }
  ? P
  : G extends { for: readonly (infer P)[] }
    ? P
    : 'server';
/** Each variable with its group and the programs reading it. */
type Row = {
  [G in keyof Groups]: {
    [N in Names<G>]: { name: N; group: G; entry: Groups[G][N]; for: ReadBy<Groups[G][N], Groups[G]> };
  }[Names<G>];
}[keyof Groups];
type Seen<E, P extends Program> = E extends { [K in P]: infer O }
  ? Omit<E, 'for' | Program | keyof O> & O
  : Omit<E, 'for' | Program>;
/** The variables program `P` reads, as it sees them. */
export type View<P extends Program> = {
  [R in Row as P extends R['for'] ? R['name'] : never]: Seen<R['entry'] & { group: R['group'] }, P>;
};

/** Program `p`'s view of the table (the relay's differences applied; the audit only on the server's). */
function view<P extends Program>(p: P): View<P> {
  const out: Record<string, Variable> = {};
  for (const [group, vars] of Object.entries(VARIABLES)) {
    const { for: groupFor, ...entries } = vars as { for?: readonly Program[] } & Record<string, Entry>;
    for (const [name, e] of Object.entries(entries)) {
      if (!(e.for ?? groupFor ?? ['server']).includes(p)) continue;
      const { for: _, relay, audit, ...rest } = e;
      const seen = p === 'relay' ? relay : p === 'server' && audit ? { audit } : {};
      out[name] = { group, ...rest, ...seen } as Variable;
    }
  }
  return out as View<P>;
}

/** The note server's variables (`npm start`, `quire serve`). */
export const SERVER_VARIABLES = view('server');
/** The relay's (`npm run relay`, `quire relay`). */
export const RELAY_VARIABLES = view('relay');
/** The ones the CLI itself reads (besides the server's and the relay's). */
export const CLI_VARIABLES = view('cli');

/** What the page shows as the default. */
export function shownDefault(v: Variable): string {
  if (v.shown) return v.shown;
  if (v.kind === 'int' || v.kind === 'enum') return `\`${v.def}\``;
  if (v.kind === 'bool') return v.def ? 'on' : 'off';
  return 'def' in v && v.def ? `\`${v.def}\`` : '—';
}
