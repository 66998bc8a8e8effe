/**
 * Every environment variable of the note server, once: validation (server.ts, agent.ts,
 * channels.ts) reads defaults and bounds from here, and docs/configuration.md is generated
 * from here (`npm run docs:config`; a test fails when the page drifts). The relay's table is
 * relay-variables.ts; both are read with `readersFor`.
 */
import { AUDIT_THRESHOLDS } from '../../../core/security/thresholds.ts';
import { bool, type Env, int, LOG_LEVELS, oneOf, str, url } from './read.ts';

/** How a variable is read and what it accepts. */
export type VariableSpec =
  | { kind: 'int'; def: number; min: number; max: number; shown?: string }
  | { kind: 'bool'; def: boolean; shown?: string }
  | { kind: 'enum'; values: readonly string[]; def: string; shown?: string }
  | { kind: 'url' | 'text' | 'secret' | 'path' | 'origins'; def?: string; shown?: string };

/**
 * How a variable bears on the security audit: which direction makes the server less safe (the
 * audit's score never rises that way; tests/security/audit-env.property.test.ts), and from where
 * the audit reports it. `audit-threshold`: the audit's own policy (lowering it never raises the score).
 */
export interface AuditEffect {
  weaker: 'higher' | 'lower' | 'on' | 'off' | 'value' | 'neutral' | 'audit-threshold';
  /** For `value`: a less safe value. */
  value?: string;
  /** Where the audit starts reporting, in words (shown on docs/configuration.md). */
  threshold?: string;
}

/** A documented variable: its group on the page, what it means, and how it is read. */
export type Variable = VariableSpec & {
  group: string;
  meaning: string;
  accepts?: string;
  audit?: AuditEffect;
};

/** The note server's variables (`npm start`, `quire serve`), in the order the page lists them. */
export const SERVER_VARIABLES = {
  PORT: {
    group: 'Server',
    kind: 'int',
    def: 3000,
    min: 0,
    max: 65535,
    meaning: 'Listening port (`0` picks a free one; the log says which).',
    audit: { weaker: 'neutral' },
  },
  HOST: {
    group: 'Server',
    kind: 'text',
    def: '127.0.0.1',
    meaning: 'Listening address (`0.0.0.0` for every interface, e.g. in a container).',
    audit: {
      weaker: 'value',
      value: '0.0.0.0',
      threshold: 'a non-loopback address without TLS declared is high; with mode none, critical',
    },
  },
  DATA_DIR: {
    group: 'Server',
    kind: 'path',
    def: './data',
    meaning:
      'Server state: `credentials.json`, `index-cache.json` and `index-journal.log`, `channels.json`, `plugins.json` (mode 0600).',
    audit: { weaker: 'neutral', threshold: 'files readable by others are high (the folder is created 0700)' },
  },
  VAULT_DIR: {
    group: 'Server',
    kind: 'path',
    shown: '`$DATA_DIR/notes`',
    meaning: 'The notes: any folder of `.md` files, e.g. an existing Obsidian vault.',
    audit: { weaker: 'neutral' },
  },
  LOG_LEVEL: {
    group: 'Server',
    kind: 'enum',
    values: LOG_LEVELS,
    def: 'info',
    meaning:
      'JSON log lines with a request id; keys and secrets are never logged. Lines go to stdout in batches (at most 25 ms late; warnings and errors at once).',
    audit: { weaker: 'neutral' },
  },
  MAX_BODY_BYTES: {
    group: 'Server',
    kind: 'int',
    def: 10 * 1024 * 1024,
    min: 1024,
    max: 1024 * 1024 * 1024,
    shown: '`10485760` (10 MiB)',
    meaning: 'Request body limit; above it the answer is 413.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.maxBodyBytes} (64 MiB) is low` },
  },
  NOTE_CACHE_BYTES: {
    group: 'Server',
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
    group: 'Server',
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
    group: 'Server',
    kind: 'bool',
    def: true,
    meaning:
      'Keep the history and the trash in `DATA_DIR/history` (docs/history.md): every change keeps the version before it, deletes go to the trash. Off: deletes are for good.',
    audit: { weaker: 'neutral' },
  },
  HISTORY_MAX_AGE_DAYS: {
    group: 'Server',
    kind: 'int',
    def: 90,
    min: 1,
    max: 36_500,
    meaning: 'Versions older than this are pruned (in the background, hourly).',
    audit: { weaker: 'neutral' },
  },
  HISTORY_MAX_BYTES: {
    group: 'Server',
    kind: 'int',
    def: 1024 ** 3,
    min: 1024 * 1024,
    max: 1024 ** 4,
    shown: '`1073741824` (1 GiB)',
    meaning: 'Past this size of kept versions (compressed), the oldest are pruned first.',
    audit: { weaker: 'neutral' },
  },
  HISTORY_MAX_FILE_BYTES: {
    group: 'Server',
    kind: 'int',
    def: 10 * 1024 * 1024,
    min: 0,
    max: 64 * 1024 * 1024 * 1024,
    shown: '`10485760` (10 MiB)',
    meaning: 'Largest attachment whose versions (and trash copy) are kept; a larger one is deleted for good.',
    audit: { weaker: 'neutral' },
  },
  TRASH_DIR: {
    group: 'Server',
    kind: 'enum',
    values: ['data', 'vault'],
    def: 'data',
    meaning:
      "Where deleted notes and files go: `data` keeps them in `DATA_DIR/history` only; `vault` also puts a copy in the vault's `.trash/` folder (Obsidian's convention), removed when the item is restored or purged. Needs HISTORY (docs/history.md).",
    audit: { weaker: 'neutral' },
  },
  TRASH_RETENTION_DAYS: {
    group: 'Server',
    kind: 'int',
    def: 30,
    min: 1,
    max: 36_500,
    meaning: 'Items stay in the trash this long, then are deleted for good (in the background).',
    audit: { weaker: 'neutral' },
  },
  RECONCILE_SECONDS: {
    group: 'Server',
    kind: 'int',
    def: 300,
    min: 5,
    max: 86_400,
    meaning: 'How often the whole vault is compared with the index (a safety net for missed file events).',
    audit: { weaker: 'neutral' },
  },
  EVENTS_RING_SIZE: {
    group: 'Server',
    kind: 'int',
    def: 10_000,
    min: 10,
    max: 1_000_000,
    meaning:
      'Change feed (`GET /api/v1/events`): how many recent events are kept for `Last-Event-ID` / `after=` resumes; an older id gets `reset`.',
    audit: { weaker: 'neutral' },
  },
  EVENTS_STREAMS_PER_KEY: {
    group: 'Server',
    kind: 'int',
    def: 8,
    min: 1,
    max: 10_000,
    meaning:
      'Change feed: event streams (`text/event-stream`) open at once per key or token subject; one more answers 429. The long-poll form is not counted.',
    audit: { weaker: 'neutral' },
  },
  MCP_MAX_ANSWER_BYTES: {
    group: 'Server',
    kind: 'int',
    def: 4 * 1024 * 1024,
    min: 4096,
    max: 256 * 1024 * 1024,
    meaning:
      'MCP endpoint: the largest answer to one POST (a message or a batch of at most 32); a message that would go beyond it is answered with a JSON-RPC error instead.',
    audit: { weaker: 'neutral' },
  },
  MCP_WRITE: {
    group: 'Server',
    kind: 'bool',
    def: true,
    meaning:
      'MCP endpoint (`/mcp`): list and allow the write tools (create, update, patch, move, delete). Off: read-only tools only.',
    audit: { weaker: 'neutral' },
  },
  INDEX_CACHE_SAVE_SECONDS: {
    group: 'Server',
    kind: 'int',
    def: 10,
    min: 0,
    max: 3_600,
    meaning: 'Workers only: seconds after a write until the index cache is saved to KV.',
    audit: { weaker: 'neutral' },
  },
  FSYNC: {
    group: 'Server',
    kind: 'bool',
    def: true,
    shown: 'on',
    meaning:
      'Each note write fsyncs the file and its folder before answering (power-loss safe). `0` keeps the atomic rename (never a torn note) but may lose the last second of writes on power loss, for faster writes (both measured in BENCHMARKS.md).',
    audit: { weaker: 'neutral' },
  },
  SHUTDOWN_GRACE_MS: {
    group: 'Server',
    kind: 'int',
    def: 10_000,
    min: 0,
    max: 600_000,
    meaning: 'On SIGTERM: how long requests in flight may take to finish before they are cut.',
    audit: { weaker: 'neutral' },
  },
  SERVICE_AUTH_MODE: {
    group: 'Auth',
    kind: 'enum',
    values: ['api-key', 'jwt', 'none'],
    def: 'api-key',
    meaning: '`api-key` (X-Service-Key), `jwt` (Bearer tokens) or `none` (development only).',
    audit: { weaker: 'value', value: 'none', threshold: '`none` is critical' },
  },
  ALLOW_INSECURE_NO_AUTH: {
    group: 'Auth',
    kind: 'bool',
    def: false,
    shown: 'off',
    meaning:
      'Lets mode `none` start although another machine could reach it (a non-loopback `HOST`, any relay pairing: `RELAY_URL`, `RELAY_PUBLIC_BASE_URL` or the embedded relay, even on loopback; `TRUST_PROXY`). Without it, mode `none` with no relay variable set (`PAIRING_MODE`, `RELAY_URL`, `RELAY_PUBLIC_BASE_URL`, `RELAY_HOST`, `RELAY_PORT`) starts in open-port pairing (one log line says so).',
    audit: { weaker: 'on', threshold: 'with mode none, reaching the server from outside is critical' },
  },
  JWT_SECRET: {
    group: 'Auth',
    kind: 'secret',
    shown: '—',
    meaning: 'jwt mode: an HS256 secret of 32+ characters (lets the server issue tokens).',
    audit: { weaker: 'neutral' },
  },
  JWT_JWKS_URL: {
    group: 'Auth',
    kind: 'url',
    shown: '—',
    meaning: 'jwt mode: a JWKS whose keys verify tokens issued elsewhere.',
    audit: { weaker: 'neutral' },
  },
  JWT_ISSUER: {
    group: 'Auth',
    kind: 'text',
    shown: '—',
    meaning: 'jwt mode: the required `iss` claim.',
    audit: { weaker: 'neutral' },
  },
  JWT_AUDIENCE: {
    group: 'Auth',
    kind: 'text',
    shown: '—',
    meaning: 'jwt mode: the required `aud` claim.',
    audit: { weaker: 'neutral' },
  },
  JWT_TTL_SECONDS: {
    group: 'Auth',
    kind: 'int',
    def: 900,
    min: 30,
    max: 86_400,
    meaning: 'jwt mode: lifetime of the tokens `POST /api/v1/auth/token` issues.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.jwtTtlSeconds} is low` },
  },
  PAIRING_MODE: {
    group: 'Pairing and relay',
    kind: 'enum',
    values: ['relay', 'open-port'],
    def: 'relay',
    meaning: '`relay` (clients reach the server through a relay) or `open-port` (directly).',
    audit: { weaker: 'value', value: 'relay' },
  },
  RELAY_URL: {
    group: 'Pairing and relay',
    kind: 'url',
    shown: 'embedded relay',
    meaning: 'A relay to register with; unset runs one inside the server process.',
    audit: {
      weaker: 'value',
      value: 'http://relay.example.com',
      threshold: 'plain http to another host is high',
    },
  },
  RELAY_PORT: {
    group: 'Pairing and relay',
    kind: 'int',
    def: 8787,
    min: 0,
    max: 65535,
    meaning: 'Port of the embedded relay.',
    audit: { weaker: 'neutral' },
  },
  RELAY_HOST: {
    group: 'Pairing and relay',
    kind: 'text',
    shown: '`HOST`',
    meaning: 'Listening address of the embedded relay.',
    audit: { weaker: 'value', value: '0.0.0.0', threshold: 'a non-loopback address over plain http is high' },
  },
  RELAY_PUBLIC_BASE_URL: {
    group: 'Pairing and relay',
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
    group: 'Pairing and relay',
    kind: 'int',
    def: 900,
    min: 30,
    max: 86_400,
    meaning: 'Lifetime of a pairing code.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.codeTtlSeconds} is low` },
  },
  PUBLIC_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    shown: 'from the request',
    meaning: 'Canonical server URL for `server.url` and every link.',
    audit: { weaker: 'value', value: 'http://notes.example.com' },
  },
  TRUST_PROXY: {
    group: 'Addresses and browsers',
    kind: 'bool',
    def: false,
    shown: 'off',
    meaning: 'Believe `X-Forwarded-Proto/Host/For` (only behind your own proxy).',
    audit: { weaker: 'on', threshold: 'on with a non-loopback HOST is medium' },
  },
  CORS_ORIGINS: {
    group: 'Addresses and browsers',
    kind: 'origins',
    shown: 'the client origins below',
    meaning: "Comma-separated exact origins; `*` is refused. The server's own origins are always added.",
    audit: { weaker: 'value', value: 'http://app.example.com', threshold: 'a plain-http origin is low' },
  },
  CLIENT_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    shown: "the server's own URL",
    meaning: 'Base of `links.connect.hostedClient`.',
    audit: { weaker: 'value', value: 'http://app.example.com' },
  },
  TEST_CLIENT_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    shown: "the server's own URL",
    meaning: 'Base of `links.connect.testHostedClient`.',
    audit: { weaker: 'value', value: 'http://app.example.com' },
  },
  LOCAL_DEV_UI_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    def: 'http://localhost:5173',
    meaning: 'Base of `links.connect.localDevUi` (`npm run dev:client`).',
    audit: { weaker: 'value', value: 'http://dev.example.com' },
  },
  RATE_LIMIT: {
    group: 'Rate limits',
    kind: 'bool',
    def: true,
    shown: 'on',
    meaning: '`0` turns rate limiting off.',
    audit: { weaker: 'off', threshold: 'off is medium (and low for the loose limits)' },
  },
  RATE_LIMIT_AUTH_PER_MINUTE: {
    group: 'Rate limits',
    kind: 'int',
    def: 30,
    min: 1,
    max: 100_000,
    meaning: 'Calls to auth/verify, link and token per client address per minute.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.authPerMinute} is low` },
  },
  RATE_LIMIT_FAILURES: {
    group: 'Rate limits',
    kind: 'int',
    def: 20,
    min: 1,
    max: 100_000,
    meaning: 'Failed authentications per client address per window before 429.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.failures} is low` },
  },
  RATE_LIMIT_FAILURE_WINDOW_SECONDS: {
    group: 'Rate limits',
    kind: 'int',
    def: 600,
    min: 1,
    max: 86_400,
    meaning: 'The failure window.',
    audit: { weaker: 'lower', threshold: `below ${AUDIT_THRESHOLDS.failureWindowSeconds} is low` },
  },
  TLS_TERMINATED_BY_PROXY: {
    group: 'Security audit and time-outs',
    kind: 'bool',
    def: false,
    shown: 'off',
    meaning: 'Declares a TLS-terminating proxy in front (the audit then accepts a public `HOST`).',
    audit: { weaker: 'off' },
  },
  KEY_MAX_AGE_DAYS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 180,
    min: 1,
    max: 36_500,
    meaning: 'The audit reports API keys older than this.',
    audit: { weaker: 'audit-threshold' },
  },
  DEVICE_KEY_IDLE_DAYS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 90,
    min: 1,
    max: 36_500,
    meaning: 'The audit reports device keys unused for longer than this.',
    audit: { weaker: 'audit-threshold' },
  },
  HEADERS_TIMEOUT_MS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 20_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Time a client may take to send its headers (then 408); at most `REQUEST_TIMEOUT_MS`.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.headersMs} is low` },
  },
  REQUEST_TIMEOUT_MS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 120_000,
    min: 1_000,
    max: 3_600_000,
    meaning: 'Time a client may take to send its whole request (then 408).',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.requestMs} is low` },
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 5_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Idle keep-alive connections close after this (the embedded relay too).',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.keepAliveMs} is low` },
  },
  RATE_LIMIT_WEBHOOK_PER_MINUTE: {
    group: 'Rate limits',
    kind: 'int',
    def: 120,
    min: 1,
    max: 100_000,
    meaning: 'Calls to the public channel webhooks per client address per minute.',
    audit: { weaker: 'higher', threshold: `above ${AUDIT_THRESHOLDS.webhookPerMinute} is low` },
  },
  AGENT_ENABLED: {
    group: 'Agent',
    kind: 'bool',
    def: true,
    shown: '`true`',
    meaning: '`false`: chat answers 503 `AGENT_DISABLED` (status still answers).',
    audit: { weaker: 'on' },
  },
  AGENT_PROVIDER: {
    group: 'Agent',
    kind: 'enum',
    values: ['local', 'openai', 'anthropic'],
    def: 'local',
    meaning: '`local` (offline rules), `openai` (any OpenAI-compatible endpoint) or `anthropic`.',
    audit: { weaker: 'value', value: 'openai', threshold: 'a remote provider is info' },
  },
  AGENT_MODEL: {
    group: 'Agent',
    kind: 'text',
    shown: '— (`anthropic`: `claude-sonnet-4-5`)',
    meaning: 'Model name; required for `openai`.',
    audit: { weaker: 'neutral' },
  },
  AGENT_BASE_URL: {
    group: 'Agent',
    kind: 'url',
    shown: "the provider's public API",
    meaning: 'e.g. `http://localhost:11434/v1` for Ollama.',
    audit: { weaker: 'value', value: 'https://llm.example.com/v1' },
  },
  AGENT_API_KEY: {
    group: 'Agent',
    kind: 'secret',
    shown: '—',
    meaning: 'Required for `anthropic` and for api.openai.com. Never logged or answered.',
    audit: { weaker: 'neutral' },
  },
  AGENT_TIMEOUT_MS: {
    group: 'Agent',
    kind: 'int',
    def: 60_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Longest one chat may take.',
    audit: { weaker: 'neutral' },
  },
  AGENT_MAX_STEPS: {
    group: 'Agent',
    kind: 'int',
    def: 8,
    min: 1,
    max: 32,
    meaning: 'Most model calls (tool rounds) per chat.',
    audit: { weaker: 'neutral' },
  },
  EMBEDDINGS_URL: {
    group: 'Semantic search',
    kind: 'url',
    shown: '— (off: lexical search only)',
    meaning:
      'An OpenAI-compatible embeddings endpoint you run or use (Ollama, llama.cpp, vLLM, OpenAI). A server root gets `/v1/embeddings`, a `/v1` base gets `/embeddings`, an address ending in `/embeddings` is used as given. Note text is sent there; Quire never downloads a model.',
    audit: { weaker: 'neutral' },
  },
  EMBEDDINGS_MODEL: {
    group: 'Semantic search',
    kind: 'text',
    shown: '—',
    meaning:
      'The embeddings model, e.g. `nomic-embed-text` (Ollama) or `text-embedding-3-small`; required with `EMBEDDINGS_URL`. Changing it re-embeds every passage.',
    audit: { weaker: 'neutral' },
  },
  EMBEDDINGS_API_KEY: {
    group: 'Semantic search',
    kind: 'secret',
    shown: '—',
    meaning:
      'Sent as a bearer token to `EMBEDDINGS_URL` (OpenAI and hosted providers). Never logged or answered.',
    audit: { weaker: 'neutral' },
  },
  EGRESS_ALLOW: {
    group: 'Outbound requests',
    kind: 'text',
    shown: '—',
    meaning:
      'Comma-separated `host` or `host:port` destinations that plugins and channels may call although they are private or loopback addresses. The base URLs you set in `AGENT_BASE_URL`, `EMBEDDINGS_URL`, `TELEGRAM_API_BASE_URL` and `WHATSAPP_API_BASE_URL` are always allowed.',
    audit: { weaker: 'value', value: '10.0.0.5:8080', threshold: 'any entry is low' },
  },
  TELEGRAM_API_BASE_URL: {
    group: 'Channels',
    kind: 'url',
    def: 'https://api.telegram.org',
    meaning: "The Bot API (a channel's `settings.apiBaseUrl` overrides).",
    audit: { weaker: 'neutral' },
  },
  WHATSAPP_API_BASE_URL: {
    group: 'Channels',
    kind: 'url',
    def: 'https://graph.facebook.com/v21.0',
    meaning: 'The Graph API with its version (same override).',
    audit: { weaker: 'neutral' },
  },
} as const satisfies Record<string, Variable>;

export type ServerVariable = keyof typeof SERVER_VARIABLES;

type Table = Record<string, Variable>;
type Name<T extends Table> = keyof T & string;
type OfKind<T extends Table, K extends string> = {
  [N in Name<T>]: T[N]['kind'] extends K ? N : never;
}[Name<T>];
type Defaulted<T extends Table> = { [N in Name<T>]: T[N] extends { def: string } ? N : never }[Name<T>];
type Value<T extends Table, N extends Name<T>> = N extends Defaulted<T> ? string : string | undefined;
type EnumValue<T extends Table, N extends Name<T>> = T[N] extends { values: readonly (infer V)[] }
  ? V
  : never;

/**
 * The typed readers of one variable table (the server's or the relay's): each takes its default
 * and bounds from the table and throws ConfigError naming the variable.
 */
export function readersFor<T extends Table>(table: T) {
  const textDefault = (name: Name<T>) => {
    const s: Variable = table[name]!;
    return 'def' in s && typeof s.def === 'string' ? s.def : undefined;
  };
  return {
    /** A whole number within the table's bounds, or its default (`def` overrides it). */
    readInt(env: Env, name: OfKind<T, 'int'>, def?: number): number {
      const s = table[name] as Extract<Variable, { kind: 'int' }>;
      return int(env, name, def ?? s.def, s.min, s.max);
    },
    /** A boolean, or the table's default. */
    readBool(env: Env, name: OfKind<T, 'bool'>): boolean {
      return bool(env, name, (table[name] as Extract<Variable, { kind: 'bool' }>).def);
    },
    /** One of the table's values, or its default. */
    readEnum<N extends OfKind<T, 'enum'>>(env: Env, name: N): EnumValue<T, N> {
      const s = table[name] as Extract<Variable, { kind: 'enum' }>;
      return oneOf(env, name, s.values, s.def) as EnumValue<T, N>;
    },
    /** An http(s) URL (no trailing slash), the table's default, or undefined. */
    readUrl<N extends OfKind<T, 'url'>>(env: Env, name: N): Value<T, N> {
      return (url(env, name) ?? textDefault(name)) as Value<T, N>;
    },
    /** A trimmed non-empty string, the table's default, or undefined. */
    readStr<N extends OfKind<T, 'text' | 'secret' | 'path' | 'origins'>>(env: Env, name: N): Value<T, N> {
      return (str(env, name) ?? textDefault(name)) as Value<T, N>;
    },
  };
}

/** The note server's readers. */
export const { readInt, readBool, readEnum, readUrl, readStr } = readersFor(SERVER_VARIABLES);

/** What the page shows as the default. */
export function shownDefault(v: Variable): string {
  if (v.shown) return v.shown;
  if (v.kind === 'int' || v.kind === 'enum') return `\`${v.def}\``;
  if (v.kind === 'bool') return v.def ? 'on' : 'off';
  return v.def ? `\`${v.def}\`` : '—';
}
