import { type Agent, createAgent } from './agent/agent.ts';
import { localProvider } from './agent/local-provider.ts';
import type { LlmProvider } from './agent/provider.ts';
import type { ToolSource } from './agent/types.ts';
import { setScopeFolding } from './auth/scope.ts';
import { createAuthService } from './auth/service.ts';
import { channelFacts } from './channels/audit.ts';
import { createChannelService } from './channels/service.ts';
import type { ChannelSender } from './channels/types.ts';
import { secureRandom } from './crypto.ts';
import { createFileService } from './files/service.ts';
import { authorOf, type KeyNames } from './history/author.ts';
import { createHistory, type History, type PruneLimits } from './history/history.ts';
import { withChangeSignal } from './live/recheck.ts';
import { createLive } from './live/service.ts';
import { createEgress, type PinnedFetch } from './net/egress.ts';
import { publicRelayUrl, type ReachConfig } from './net/origins.ts';
import { createChangeFeed } from './notes/change-feed.ts';
import { type BatchAnalyzer, createNoteService, type NoteService } from './notes/service.ts';
import { createPeopleService, type PeopleService } from './people/service.ts';
import { pluginFacts } from './plugins/audit.ts';
import { createPluginManager } from './plugins/manager.ts';
import type { PluginDefinition } from './plugins/types.ts';
import type { Clock, Embeddings, FileStore, HistoryStore, Logger, NoteStore, StateStore } from './ports.ts';
import { createPublicationService, type PublicationService } from './publish/service.ts';
import { createRetrieval, type Retrieval } from './search/retrieval.ts';
import { createSemanticIndex, type SemanticIndex } from './search/semantic/semantic-index.ts';
import { createSecurityService, type SecurityDeps } from './security/service.ts';
import { type SecurityConfig, securitySettings } from './security/settings.ts';
import type { HttpTimeouts, PublicationFact } from './security/types.ts';

/** Everything `createCore` needs: a store and a clock; the rest has defaults. */
export interface CoreDeps {
  /** Where the notes live (memory, filesystem, R2, ...). */
  store: NoteStore;
  /** The vault's other files (attachments), so that links and embeds to them resolve. */
  files?: FileStore;
  /** Wall clock (`{ now: Date.now }`). */
  clock: Clock;
  /** Where the index cache lives; without it every start re-parses the vault. */
  state?: StateStore;
  logger?: Logger;
  /** The agent's model (default: the offline `local` provider). */
  provider?: LlmProvider;
  /** False: chat answers `AGENT_DISABLED` (default true). */
  agentEnabled?: boolean;
  /** Tools plugins contribute to the agent. */
  agentTools?: ToolSource;
  /** Most agent steps per chat (default 8) and the longest chat in ms (default 60,000). */
  agentLimits?: { maxSteps?: number; timeoutMs?: number };
  /** Parses many notes at once (a runtime may spread this over threads). */
  analyze?: BatchAnalyzer;
  /**
   * True while the host answers requests: background work after a start (the warm start's check
   * of the vault) waits for a quiet moment, a second at most.
   */
  busy?: () => boolean;
  /** Where versions and the trash are kept; without it deletes are for good. */
  history?: HistoryStore;
  /** Largest attachment whose versions are kept (default 10 MiB). */
  historyMaxFileBytes?: number;
  /** An embeddings model for semantic search (adapters/embeddings); absent: lexical search only. */
  embeddings?: Embeddings;
}

/** The core of a Quire server: notes (index, links, search) and the agent over them. */
export interface Core {
  notes: NoteService;
  /** Versions and trash; null without a history store. */
  history: History | null;
  agent: Agent;
  /** Search in every mode (lexical, semantic, hybrid), related notes, citations. */
  retrieval: Retrieval;
  /** The semantic index, when embeddings are configured. */
  semantic?: SemanticIndex;
  /** Indexes the store (reusing the index cache in `state` when there is one); call once before use. */
  load(onProgress?: (done: number, total: number) => void): Promise<void>;
  /** Waits for writes in flight, then saves the index cache when it changed. */
  flush(): Promise<void>;
}

/** The configuration the whole domain reads (a Quire server's validated environment fits it). */
export interface CoreSettings extends SecurityConfig, ReachConfig {
  agent: SecurityConfig['agent'] & {
    provider: 'local' | 'openai' | 'anthropic';
    model: string;
    maxSteps: number;
    timeoutMs: number;
  };
  channels: { telegramApiBaseUrl: string; whatsappApiBaseUrl: string };
  /** Largest attachment upload in bytes. */
  maxFileBytes: number;
  /** Recent change-feed events kept for resumes. */
  eventsRingSize: number;
  /** Quiet time after live typing before the document is written (default 1,000 ms, at most 2,000). */
  liveDebounceMs?: number;
  /** How often live editors' credentials are checked again (default 5,000 ms; changes here: at once). */
  liveRecheckMs?: number;
  /** History and trash retention; absent: the defaults of `HISTORY_DEFAULTS`. */
  history?: Partial<PruneLimits> & { maxFileBytes?: number };
  /** The semantic search provider (EMBEDDINGS_*); null or absent: lexical search only. */
  embeddings?: { url: string; model: string } | null;
}

/** Default retention: versions 90 days and 1 GiB, the trash 30 days. */
export const HISTORY_DEFAULTS: PruneLimits = {
  maxAgeMs: 90 * 86_400_000,
  maxBytes: 1024 ** 3,
  trashMs: 30 * 86_400_000,
};

/** What a server's core needs besides the store: its state, its settings and its adapters. */
export interface ServerCoreDeps
  extends Omit<CoreDeps, 'provider' | 'agentEnabled' | 'agentLimits' | 'embeddings'> {
  state: StateStore;
  logger: Logger;
  settings: CoreSettings;
  /** For system/info and the plugins. */
  version: string;
  /** The agent's model over the egress-checked fetch (adapters/llm). */
  providerFor: (fetch: typeof globalThis.fetch) => LlmProvider;
  /** The embeddings model over the egress-checked fetch (adapters/embeddings); absent: lexical only. */
  embeddingsFor?: (fetch: typeof globalThis.fetch) => Embeddings | undefined;
  /** The channels' senders over the egress-checked fetch (adapters/channels). */
  sendersFor: (fetch: typeof globalThis.fetch) => Partial<Record<'telegram' | 'whatsapp', ChannelSender>>;
  /** The HTTP client of the agent, channels and plugins (default: the global fetch, pinned). */
  fetch?: typeof globalThis.fetch;
  /** DNS lookups for the egress check; absent: only names and literal addresses are checked. */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** Connects to a checked address; absent: fetch by name. */
  pinnedFetch?: PinnedFetch;
  /** Plugins registered in code, beside the built-ins. */
  plugins?: readonly PluginDefinition[];
  /** Permission bits of the state files, for the audit. */
  stateFileModes?: SecurityDeps['stateFileModes'];
  /** The runtime's socket time-outs, for the audit. */
  timeouts?: HttpTimeouts;
  /** The relay clients are sent to, when known late (the embedded relay's address). */
  relayUrl?: () => string | null;
}

/** The whole domain of a Quire server: notes, auth, plugins, one agent, channels, the audit. */
export type ServerCore = ReturnType<typeof createServerCore>;

/**
 * Builds the core for embedding: no HTTP, no platform. Hand the result to `createApp` for the
 * HTTP API, or call `notes` and `agent` directly from a script or another app. With `settings`
 * (a server's configuration) and its adapters, it builds the whole domain of a Quire server.
 */
export function createCore(deps: ServerCoreDeps): ServerCore;
export function createCore(deps: CoreDeps): Core;
export function createCore(deps: CoreDeps | ServerCoreDeps): Core | ServerCore {
  // Folder scopes compare names as the vault's file system does (case-insensitive or not).
  setScopeFolding(deps.store.foldsCase === true);
  if ('settings' in deps) return createServerCore(deps);
  const history = historyOf(deps, deps.historyMaxFileBytes);
  const notes = createNoteService({
    history: history ?? undefined,
    store: deps.store,
    clock: deps.clock,
    state: deps.state,
    logger: deps.logger,
    analyze: deps.analyze,
    files: deps.files,
    busy: deps.busy,
  });
  const semantic = deps.embeddings
    ? createSemanticIndex({ notes, embeddings: deps.embeddings, state: deps.state, logger: deps.logger })
    : undefined;
  const retrieval = createRetrieval({ notes, semantic, logger: deps.logger });
  const agent = createAgent({
    notes,
    retrieval,
    clock: deps.clock,
    logger: deps.logger,
    provider: deps.provider ?? localProvider(),
    enabled: deps.agentEnabled,
    extraTools: deps.agentTools,
    maxSteps: deps.agentLimits?.maxSteps,
    timeoutMs: deps.agentLimits?.timeoutMs,
  });
  return {
    notes,
    history,
    agent,
    retrieval,
    ...(semantic ? { semantic } : {}),
    load: async (onProgress) => {
      await history?.load();
      await notes.load(onProgress);
      await semantic?.start();
    },
    async flush() {
      await notes.drain();
      await notes.saveCache();
    },
  };
}

/** The destinations the operator named in the settings: always allowed by the egress policy. */
function operatorHosts(settings: CoreSettings): string[] {
  const urls = [
    settings.agent.baseURL,
    settings.embeddings?.url,
    settings.channels.telegramApiBaseUrl,
    settings.channels.whatsappApiBaseUrl,
  ];
  return urls.flatMap((u) => (u && URL.canParse(u) ? [new URL(u).host] : []));
}

/** The history over `deps.history`, or null. */
function historyOf(deps: CoreDeps, maxFileBytes?: number, limits?: PruneLimits): History | null {
  if (!deps.history) return null;
  return createHistory({ store: deps.history, clock: deps.clock, logger: deps.logger, maxFileBytes, limits });
}

/**
 * Keys, and people with their sessions and shares. Their state signals every change it keeps
 * (`whenChanged`), so the live editors a change no longer allows are sent away at once.
 */
function credentialsOf(deps: ServerCoreDeps) {
  const { settings, state, clock, logger } = deps;
  let changed = () => {};
  const signalled = withChangeSignal(state, () => changed());
  const pairCodeTtlMs = settings.pairCodeTtlSeconds * 1000;
  const auth = createAuthService({ state: signalled, clock, logger, pairCodeTtlMs });
  // People signed in with passkeys or passwords, and the folders shared with them.
  const people = createPeopleService({ state: signalled, clock });
  const whenChanged = (fn: () => void) => {
    changed = fn;
  };
  return { auth, people, whenChanged };
}

function createServerCore(deps: ServerCoreDeps) {
  const { settings, state, clock, logger } = deps;
  const historyLimits: PruneLimits = { ...HISTORY_DEFAULTS, ...stripUndefined(settings.history ?? {}) };
  // The limits go to the history too: HISTORY_MAX_BYTES is held on every write, not only hourly.
  const history: History | null = historyOf(deps, settings.history?.maxFileBytes, historyLimits);
  const notes = createNoteService({
    history: history ?? undefined,
    store: deps.store,
    clock,
    state,
    logger,
    analyze: deps.analyze,
    files: deps.files,
    busy: deps.busy,
  });
  const { auth, people, whenChanged } = credentialsOf(deps);
  // Notes and folders published read-only to anyone with the link, kept beside the people.
  const publications = publicationsOf(state, clock, people);
  /**
   * A key's (or a person's) name by its id: authors are named by device or person wherever a
   * person or a model reads them.
   */
  const keyNames: KeyNames = (id) => people.nameOf(id) ?? auth.listKeys().find((k) => k.id === id)?.name;
  const egress = createEgress({
    fetch: deps.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    resolveHost: deps.resolveHost,
    // An injected fetch (tests, workers) is used as it is; the runtime's pinned fetch otherwise.
    pinnedFetch: deps.fetch ? undefined : deps.pinnedFetch,
    allowHosts: [...settings.egressAllow, ...operatorHosts(settings)],
  });
  const plugins = createPluginManager({
    notes,
    state,
    clock,
    logger,
    fetch: deps.fetch,
    egress,
    resolveHost: deps.resolveHost,
    version: deps.version,
    plugins: deps.plugins,
  });
  const embeddings = deps.embeddingsFor?.(egress.fetchFn());
  const semantic = embeddings ? createSemanticIndex({ notes, embeddings, state, logger }) : undefined;
  const retrieval = createRetrieval({ notes, semantic, logger });
  // One agent, with the plugins' tools.
  const agent = createAgent({
    notes,
    keyNames,
    retrieval,
    clock,
    logger,
    provider: deps.providerFor(egress.fetchFn()),
    enabled: settings.agent.enabled,
    extraTools: () => [...(deps.agentTools?.() ?? []), ...plugins.tools()],
    maxSteps: settings.agent.maxSteps,
    timeoutMs: settings.agent.timeoutMs,
  });
  const channels = createChannelService({
    state,
    clock,
    logger,
    agent,
    random: secureRandom,
    egress,
    senders: deps.sendersFor(egress.fetchFn()),
  });
  const relayUrl = deps.relayUrl ?? (() => publicRelayUrl(settings));
  const security = createSecurityService({
    clock,
    auth,
    stateFileModes: deps.stateFileModes,
    channels: () => channelFacts(channels),
    plugins: () => pluginFacts(plugins),
    people: () =>
      people.list().map((p) => ({
        id: p.id,
        name: p.name,
        disabled: p.disabled,
        password: p.signIn.password,
        passkeys: p.signIn.passkeys,
      })),
    publications: () => publicationFacts(publications),
    settings: () => securitySettings(settings, relayUrl(), deps.timeouts),
  });
  const files = deps.files
    ? createFileService({
        store: deps.files,
        clock,
        maxBytes: settings.maxFileBytes,
        history: history ?? undefined,
      })
    : undefined;
  const feed = createChangeFeed({
    notes,
    now: () => clock.now(),
    size: settings.eventsRingSize,
    author: (by) => authorOf(by, keyNames),
  });
  const live = createLive({
    notes,
    author: (by) => authorOf(by, keyNames),
    logger: deps.logger,
    now: () => clock.now(),
    debounceMs: settings.liveDebounceMs,
    recheckMs: settings.liveRecheckMs,
  });
  whenChanged(live.recheckNow);
  return {
    notes,
    live,
    agent,
    retrieval,
    semantic,
    auth,
    people,
    publications,
    plugins,
    channels,
    security,
    files,
    feed,
    history,
    /** Retention limits in force (for prune, health and doctor). */
    historyLimits,
    /** Drops versions and trash items past the limits (the runtime calls it now and then). */
    prune: (): Promise<{ versions: number; trash: number }> =>
      history ? history.prune(historyLimits) : Promise.resolve({ versions: 0, trash: 0 }),
    /** Reads credentials, plugins and channels from `state` (call once, before serving). */
    async init(): Promise<void> {
      await auth.init();
      await people.init();
      await publications.init();
      await plugins.load();
      await channels.load();
    },
    /** Indexes the store (reusing the index cache), then starts embedding in the background; the lifecycle calls it. */
    load: async (onProgress?: (done: number, total: number) => void): Promise<void> => {
      await history?.load();
      await notes.load(onProgress);
      await semantic?.start();
    },
    /** Waits for writes in flight, then saves the index cache when it changed. */
    async flush(): Promise<void> {
      await notes.drain();
      await notes.saveCache();
    },
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Publications, each made by a person ending with that person's right to publish there. */
function publicationsOf(state: StateStore, clock: Clock, people: PeopleService): PublicationService {
  return createPublicationService({
    state,
    clock,
    stillAllowed: (by, folder) => {
      if (!by.startsWith('person:')) return true;
      const id = by.slice('person:'.length);
      const person = people.list().find((p) => p.id === id);
      return Boolean(person && !person.disabled && people.manages(id, folder));
    },
  });
}

/** What the audit reads of the publications (never a password hash). */
function publicationFacts(publications: PublicationService): PublicationFact[] {
  return publications.list().map(({ id, kind, path, password, expiresAt, active }) => ({
    id,
    kind,
    path,
    password,
    expiresAt,
    active,
  }));
}
