/**
 * Every environment variable of the note server, once: validation (config.ts, agent-config.ts,
 * channels-config.ts) reads defaults and bounds from here, and docs/configuration.md is generated
 * from here (`npm run docs:config`; a test fails when the page drifts).
 */
import { bool, type Env, int, oneOf, str, url } from './env.ts';

/** How a variable is read and what it accepts. */
export type VariableSpec =
  | { kind: 'int'; def: number; min: number; max: number; shown?: string }
  | { kind: 'bool'; def: boolean; shown?: string }
  | { kind: 'enum'; values: readonly string[]; def: string; shown?: string }
  | { kind: 'url' | 'text' | 'secret' | 'path' | 'origins'; def?: string; shown?: string };

/** A documented variable: its group on the page, what it means, and how it is read. */
export type Variable = VariableSpec & { group: string; meaning: string; accepts?: string };

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** The note server's variables (`npm start`, `quire serve`), in the order the page lists them. */
export const SERVER_VARIABLES = {
  PORT: {
    group: 'Server',
    kind: 'int',
    def: 3000,
    min: 0,
    max: 65535,
    meaning: 'Listening port (`0` picks a free one; the log says which).',
  },
  HOST: {
    group: 'Server',
    kind: 'text',
    def: '127.0.0.1',
    meaning: 'Listening address (`0.0.0.0` for every interface, e.g. in a container).',
  },
  DATA_DIR: {
    group: 'Server',
    kind: 'path',
    def: './data',
    meaning:
      'Server state: `credentials.json`, `index-cache.json`, `channels.json`, `plugins.json` (mode 0600).',
  },
  VAULT_DIR: {
    group: 'Server',
    kind: 'path',
    shown: '`$DATA_DIR/notes`',
    meaning: 'The notes: any folder of `.md` files, e.g. an existing Obsidian vault.',
  },
  LOG_LEVEL: {
    group: 'Server',
    kind: 'enum',
    values: LOG_LEVELS,
    def: 'info',
    meaning: 'JSON log lines with a request id; keys and secrets are never logged.',
  },
  MAX_BODY_BYTES: {
    group: 'Server',
    kind: 'int',
    def: 10 * 1024 * 1024,
    min: 1024,
    max: 1024 * 1024 * 1024,
    shown: '`10485760` (10 MiB)',
    meaning: 'Request body limit; above it the answer is 413.',
  },
  RECONCILE_SECONDS: {
    group: 'Server',
    kind: 'int',
    def: 300,
    min: 5,
    max: 86_400,
    meaning: 'How often the whole vault is compared with the index (a safety net for missed file events).',
  },
  INDEX_CACHE_SAVE_SECONDS: {
    group: 'Server',
    kind: 'int',
    def: 10,
    min: 0,
    max: 3_600,
    meaning: 'Workers only: seconds after a write until the index cache is saved to KV.',
  },
  SHUTDOWN_GRACE_MS: {
    group: 'Server',
    kind: 'int',
    def: 10_000,
    min: 0,
    max: 600_000,
    meaning: 'On SIGTERM: how long requests in flight may take to finish before they are cut.',
  },
  SERVICE_AUTH_MODE: {
    group: 'Auth',
    kind: 'enum',
    values: ['api-key', 'jwt', 'none'],
    def: 'api-key',
    meaning: '`api-key` (X-Service-Key), `jwt` (Bearer tokens) or `none` (development only).',
  },
  ALLOW_INSECURE_NO_AUTH: {
    group: 'Auth',
    kind: 'bool',
    def: false,
    shown: 'off',
    meaning: 'Lets mode `none` listen on a non-loopback `HOST`.',
  },
  JWT_SECRET: {
    group: 'Auth',
    kind: 'secret',
    shown: '—',
    meaning: 'jwt mode: an HS256 secret of 32+ characters (lets the server issue tokens).',
  },
  JWT_JWKS_URL: {
    group: 'Auth',
    kind: 'url',
    shown: '—',
    meaning: 'jwt mode: a JWKS whose keys verify tokens issued elsewhere.',
  },
  JWT_ISSUER: { group: 'Auth', kind: 'text', shown: '—', meaning: 'jwt mode: the required `iss` claim.' },
  JWT_AUDIENCE: { group: 'Auth', kind: 'text', shown: '—', meaning: 'jwt mode: the required `aud` claim.' },
  JWT_TTL_SECONDS: {
    group: 'Auth',
    kind: 'int',
    def: 900,
    min: 30,
    max: 86_400,
    meaning: 'jwt mode: lifetime of the tokens `POST /api/v1/auth/token` issues.',
  },
  PAIRING_MODE: {
    group: 'Pairing and relay',
    kind: 'enum',
    values: ['relay', 'open-port'],
    def: 'relay',
    meaning: '`relay` (clients reach the server through a relay) or `open-port` (directly).',
  },
  RELAY_URL: {
    group: 'Pairing and relay',
    kind: 'url',
    shown: 'embedded relay',
    meaning: 'A relay to register with; unset runs one inside the server process.',
  },
  RELAY_PORT: {
    group: 'Pairing and relay',
    kind: 'int',
    def: 8787,
    min: 0,
    max: 65535,
    meaning: 'Port of the embedded relay.',
  },
  RELAY_HOST: {
    group: 'Pairing and relay',
    kind: 'text',
    shown: '`HOST`',
    meaning: 'Listening address of the embedded relay.',
  },
  RELAY_PUBLIC_BASE_URL: {
    group: 'Pairing and relay',
    kind: 'url',
    shown: '—',
    meaning:
      "The relay as clients reach it: the embedded relay behind TLS, say, or `RELAY_URL`'s public address when the server reaches it internally (Compose).",
  },
  PAIRING_CODE_TTL_SECONDS: {
    group: 'Pairing and relay',
    kind: 'int',
    def: 900,
    min: 30,
    max: 86_400,
    meaning: 'Lifetime of a pairing code.',
  },
  PUBLIC_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    shown: 'from the request',
    meaning: 'Canonical server URL for `server.url` and every link.',
  },
  TRUST_PROXY: {
    group: 'Addresses and browsers',
    kind: 'bool',
    def: false,
    shown: 'off',
    meaning: 'Believe `X-Forwarded-Proto/Host/For` (only behind your own proxy).',
  },
  CORS_ORIGINS: {
    group: 'Addresses and browsers',
    kind: 'origins',
    shown: 'the client origins below',
    meaning: "Comma-separated exact origins; `*` is refused. The server's own origins are always added.",
  },
  CLIENT_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    shown: "the server's own URL",
    meaning: 'Base of `links.connect.hostedClient`.',
  },
  TEST_CLIENT_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    shown: "the server's own URL",
    meaning: 'Base of `links.connect.testHostedClient`.',
  },
  LOCAL_DEV_UI_URL: {
    group: 'Addresses and browsers',
    kind: 'url',
    def: 'http://localhost:5173',
    meaning: 'Base of `links.connect.localDevUi` (`npm run dev:client`).',
  },
  RATE_LIMIT: {
    group: 'Rate limits',
    kind: 'bool',
    def: true,
    shown: 'on',
    meaning: '`0` turns rate limiting off.',
  },
  RATE_LIMIT_AUTH_PER_MINUTE: {
    group: 'Rate limits',
    kind: 'int',
    def: 30,
    min: 1,
    max: 100_000,
    meaning: 'Calls to auth/verify, link and token per client address per minute.',
  },
  RATE_LIMIT_FAILURES: {
    group: 'Rate limits',
    kind: 'int',
    def: 20,
    min: 1,
    max: 100_000,
    meaning: 'Failed authentications per client address per window before 429.',
  },
  RATE_LIMIT_FAILURE_WINDOW_SECONDS: {
    group: 'Rate limits',
    kind: 'int',
    def: 600,
    min: 1,
    max: 86_400,
    meaning: 'The failure window.',
  },
  TLS_TERMINATED_BY_PROXY: {
    group: 'Security audit and time-outs',
    kind: 'bool',
    def: false,
    shown: 'off',
    meaning: 'Declares a TLS-terminating proxy in front (the audit then accepts a public `HOST`).',
  },
  KEY_MAX_AGE_DAYS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 180,
    min: 1,
    max: 36_500,
    meaning: 'The audit reports API keys older than this.',
  },
  DEVICE_KEY_IDLE_DAYS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 90,
    min: 1,
    max: 36_500,
    meaning: 'The audit reports device keys unused for longer than this.',
  },
  HEADERS_TIMEOUT_MS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 20_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Time a client may take to send its headers (then 408); at most `REQUEST_TIMEOUT_MS`.',
  },
  REQUEST_TIMEOUT_MS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 120_000,
    min: 1_000,
    max: 3_600_000,
    meaning: 'Time a client may take to send its whole request (then 408).',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    group: 'Security audit and time-outs',
    kind: 'int',
    def: 5_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Idle keep-alive connections close after this (the embedded relay too).',
  },
  RATE_LIMIT_WEBHOOK_PER_MINUTE: {
    group: 'Rate limits',
    kind: 'int',
    def: 120,
    min: 1,
    max: 100_000,
    meaning: 'Calls to the public channel webhooks per client address per minute.',
  },
  AGENT_ENABLED: {
    group: 'Agent',
    kind: 'bool',
    def: true,
    shown: '`true`',
    meaning: '`false`: chat answers 503 `AGENT_DISABLED` (status still answers).',
  },
  AGENT_PROVIDER: {
    group: 'Agent',
    kind: 'enum',
    values: ['local', 'openai', 'anthropic'],
    def: 'local',
    meaning: '`local` (offline rules), `openai` (any OpenAI-compatible endpoint) or `anthropic`.',
  },
  AGENT_MODEL: {
    group: 'Agent',
    kind: 'text',
    shown: '— (`anthropic`: `claude-sonnet-4-5`)',
    meaning: 'Model name; required for `openai`.',
  },
  AGENT_BASE_URL: {
    group: 'Agent',
    kind: 'url',
    shown: "the provider's public API",
    meaning: 'e.g. `http://localhost:11434/v1` for Ollama.',
  },
  AGENT_API_KEY: {
    group: 'Agent',
    kind: 'secret',
    shown: '—',
    meaning: 'Required for `anthropic` and for api.openai.com. Never logged or answered.',
  },
  AGENT_TIMEOUT_MS: {
    group: 'Agent',
    kind: 'int',
    def: 60_000,
    min: 1_000,
    max: 600_000,
    meaning: 'Longest one chat may take.',
  },
  AGENT_MAX_STEPS: {
    group: 'Agent',
    kind: 'int',
    def: 8,
    min: 1,
    max: 32,
    meaning: 'Most model calls (tool rounds) per chat.',
  },
  TELEGRAM_API_BASE_URL: {
    group: 'Channels',
    kind: 'url',
    def: 'https://api.telegram.org',
    meaning: "The Bot API (a channel's `settings.apiBaseUrl` overrides).",
  },
  WHATSAPP_API_BASE_URL: {
    group: 'Channels',
    kind: 'url',
    def: 'https://graph.facebook.com/v21.0',
    meaning: 'The Graph API with its version (same override).',
  },
} as const satisfies Record<string, Variable>;

export type ServerVariable = keyof typeof SERVER_VARIABLES;
type OfKind<K extends string> = {
  [N in ServerVariable]: (typeof SERVER_VARIABLES)[N]['kind'] extends K ? N : never;
}[ServerVariable];

/** A whole number within the table's bounds, or its default. */
export function readInt(env: Env, name: OfKind<'int'>): number {
  const s = SERVER_VARIABLES[name];
  return int(env, name, s.def, s.min, s.max);
}

/** A boolean, or the table's default. */
export function readBool(env: Env, name: OfKind<'bool'>): boolean {
  return bool(env, name, SERVER_VARIABLES[name].def);
}

/** One of the table's values, or its default. */
export function readEnum<N extends OfKind<'enum'>>(
  env: Env,
  name: N,
): (typeof SERVER_VARIABLES)[N]['values'][number] {
  const s = SERVER_VARIABLES[name];
  return oneOf(env, name, s.values, s.def as (typeof s.values)[number]);
}

type Defaulted = {
  [N in ServerVariable]: (typeof SERVER_VARIABLES)[N] extends { def: string } ? N : never;
}[ServerVariable];
type Value<N extends ServerVariable> = N extends Defaulted ? string : string | undefined;
const textDefault = (name: ServerVariable) => {
  const s: Variable = SERVER_VARIABLES[name];
  return 'def' in s && typeof s.def === 'string' ? s.def : undefined;
};

/** An http(s) URL (no trailing slash), the table's default, or undefined. */
export function readUrl<N extends OfKind<'url'>>(env: Env, name: N): Value<N> {
  return (url(env, name) ?? textDefault(name)) as Value<N>;
}

/** A trimmed non-empty string, the table's default, or undefined. */
export function readStr<N extends OfKind<'text' | 'secret' | 'path' | 'origins'>>(
  env: Env,
  name: N,
): Value<N> {
  return (str(env, name) ?? textDefault(name)) as Value<N>;
}

/** What the page shows as the default. */
export function shownDefault(v: Variable): string {
  if (v.shown) return v.shown;
  if (v.kind === 'int' || v.kind === 'enum') return `\`${v.def}\``;
  if (v.kind === 'bool') return v.def ? 'on' : 'off';
  return v.def ? `\`${v.def}\`` : '—';
}
