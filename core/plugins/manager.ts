/**
 * The plugin manager: the catalog (built-ins plus plugins registered in code), install, toggle,
 * configure and remove, persisted as one atomically replaced document; live contributions
 * (tools, hooks, routes) that follow every change at once, with each plugin's errors isolated.
 */
import type { AgentTool } from '../agent/types.ts';
import { type RandomBytes, secureRandom } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { createMutex } from '../mutex.ts';
import type { Egress } from '../net/egress.ts';
import type { NoteService } from '../notes/service.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
import { builtinPlugins } from './builtins/index.ts';
import { checkConfig, configError, mergeSecrets } from './config.ts';
import { isPluginIdShape } from './define.ts';
import { pluginContext } from './host.ts';
import { catalogEntry, egressEntry, type PluginRecord, pluginRecord } from './records.ts';
import { callPluginRoute } from './routes.ts';
import {
  activate,
  deactivate,
  dispatchHook,
  newSlot,
  recordError,
  type Slot,
  slotRuntime,
} from './runtime.ts';
import {
  dataKey,
  parseState,
  STATE_KEY,
  type StoredPlugin,
  type StoredState,
  serializeState,
} from './state.ts';
import type { PluginDefinition, ResolveHost } from './types.ts';

/** Everything `createPluginManager` needs. */
export interface PluginManagerDeps {
  notes: NoteService;
  /** Where `plugins.json` and each plugin's data live. */
  state: StateStore;
  clock: Clock;
  logger?: Logger;
  /** The HTTP client handed to `network` plugins (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  random?: RandomBytes;
  /** DNS for the egress checks (the Node root passes node:dns). */
  resolveHost?: ResolveHost;
  /** The one egress policy; when given, plugins' fetch connects only to checked addresses. */
  egress?: Egress;
  /** The server's version, for plugins' User-Agent. */
  version?: string;
  /** The built-in catalog (default: `builtinPlugins`). */
  builtins?: readonly PluginDefinition[];
  /** Plugins registered in code (`definePlugin`); listed with `source: "code"`. */
  plugins?: readonly PluginDefinition[];
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Builds the plugin manager. Call `load()` once before use and `stop()` at shutdown. */
export function createPluginManager(deps: PluginManagerDeps) {
  const { notes, state, clock } = deps;
  const logger = deps.logger ?? silent;
  const mutex = createMutex();
  const slots = new Map<string, Slot>();
  for (const [defs, source] of [
    [deps.builtins ?? builtinPlugins, 'builtin'],
    [deps.plugins ?? [], 'code'],
  ] as const) {
    for (const def of defs) {
      if (slots.has(def.id)) throw new Error(`Two plugins share the id "${def.id}".`);
      slots.set(def.id, newSlot(def, source));
    }
  }
  let stored: StoredState = parseState(null);
  let stateError: string | null = null;
  let unsubscribe: (() => void) | null = null;

  /** The catalog entry for `id`: the first thing every operation does, before any I/O. */
  const lookup = (id: unknown): Slot => {
    const slot = typeof id === 'string' ? slots.get(id) : undefined;
    if (slot) return slot;
    const shown = typeof id === 'string' && isPluginIdShape(id) ? `"${id}" ` : '';
    throw new DomainError(
      'PLUGIN_NOT_FOUND',
      `No plugin ${shown}in the catalog; GET /api/v1/plugins/catalog lists them.`,
    );
  };
  const installed = (id: unknown): { slot: Slot; rec: StoredPlugin } => {
    const slot = lookup(id);
    const rec = stored.plugins[slot.def.id];
    if (rec) return { slot, rec };
    throw new DomainError(
      'PLUGIN_NOT_FOUND',
      `Plugin ${slot.def.id} is not installed; POST /api/v1/plugins/install {"id": "${slot.def.id}"}.`,
    );
  };
  /** Runs a change of plugin `id` alone, against the current record, refusing on damaged state. */
  const change = <T>(id: string, fn: (slot: Slot, rec: StoredPlugin) => Promise<T>): Promise<T> => {
    installed(id);
    return mutex.run(async () => {
      if (stateError) {
        throw new DomainError(
          'CONFLICT',
          `Plugin state cannot change: ${stateError}. Fix or delete DATA_DIR/${STATE_KEY}.`,
        );
      }
      const { slot, rec } = installed(id);
      return fn(slot, rec);
    });
  };
  /** Stores plugin `id`'s record (null removes it), then brings its instance in line. */
  const save = async (slot: Slot, rec: StoredPlugin | null) => {
    const plugins: Record<string, StoredPlugin> = Object.assign(Object.create(null), stored.plugins);
    if (rec) plugins[slot.def.id] = rec;
    else delete plugins[slot.def.id];
    const next: StoredState = { v: 1, plugins };
    await state.put(STATE_KEY, serializeState(next));
    stored = next;
    await apply(slot, rec);
  };
  const now = () => new Date(clock.now()).toISOString();
  const resetFigures = (slot: Slot) => {
    slot.lastError = null;
    slot.errorCount = 0;
    slot.hookCalls = 0;
  };

  /** Active with its validated config when enabled; inactive otherwise. */
  const apply = async (slot: Slot, rec: StoredPlugin | null) => {
    if (!rec?.enabled) return deactivate(slot, clock, logger);
    const checked = checkConfig(slot.def, rec.config);
    if (!checked.ok) {
      await deactivate(slot, clock, logger);
      recordError(
        slot,
        'config',
        configError(slot.def.id, checked.issues, 'Stored config is invalid'),
        clock,
        logger,
      );
      return;
    }
    const ctx = pluginContext(slot, checked.config, { ...deps, logger });
    await activate(slot, ctx, clock, logger);
  };

  const installedSlots = () => [...slots.values()].filter((s) => stored.plugins[s.def.id]);
  const recordOf = (slot: Slot): PluginRecord => pluginRecord(slot, stored.plugins[slot.def.id]!);

  return {
    /** Reads the stored state, activates the enabled plugins, and starts delivering note events. */
    async load(): Promise<void> {
      try {
        stored = parseState(await state.get(STATE_KEY));
      } catch (err) {
        stateError = err instanceof Error ? err.message : String(err);
        logger.error('plugins are off: their state is damaged', { error: stateError, key: STATE_KEY });
      }
      for (const slot of slots.values()) await apply(slot, stored.plugins[slot.def.id] ?? null);
      unsubscribe ??= notes.subscribe((e) => {
        for (const slot of slots.values()) if (slot.instance) dispatchHook(slot, e, clock, logger);
      });
    },

    /** Stops every plugin and the event delivery (shutdown). */
    async stop(): Promise<void> {
      unsubscribe?.();
      unsubscribe = null;
      await mutex.run(async () => {
        for (const slot of slots.values()) await deactivate(slot, clock, logger);
      });
    },

    /** Everything installable, with its installed/enabled state and config schema. */
    catalog: () => [...slots.values()].map((s) => catalogEntry(s, stored.plugins[s.def.id])),

    /** The installed plugins, sorted by id; secrets redacted. */
    list: (): PluginRecord[] =>
      installedSlots()
        .map(recordOf)
        .sort((a, b) => (a.id < b.id ? -1 : 1)),

    /** One installed plugin; PLUGIN_NOT_FOUND when unknown or not installed. */
    get: (id: string): PluginRecord => recordOf(installed(id).slot),

    /**
     * Installs a plugin from the catalog, disabled unless `enabled`. Secrets the plugin can
     * generate that were not given are generated and returned once, in `generatedSecrets`.
     */
    install(input: { id: string; config?: Record<string, unknown>; enabled?: boolean }) {
      const slot = lookup(input.id);
      const { def } = slot;
      return mutex.run(async () => {
        if (stateError) throw new DomainError('CONFLICT', `Plugin state cannot change: ${stateError}.`);
        if (stored.plugins[def.id]) {
          throw new DomainError(
            'CONFLICT',
            `Plugin ${def.id} is already installed; PUT /api/v1/plugins/${def.id}/config to change it.`,
          );
        }
        let config: Record<string, unknown> = { ...input.config };
        const generated: Record<string, string> = {};
        for (const [name, field] of Object.entries(def.secrets ?? {})) {
          if (field.generate && (config[name] === undefined || config[name] === null)) {
            config[name] = generated[name] = field.generate(deps.random ?? secureRandom);
          }
        }
        const checked = checkConfig(def, config);
        if (checked.ok) config = checked.config;
        else if (input.config !== undefined || input.enabled) throw configError(def.id, checked.issues);
        const at = now();
        resetFigures(slot);
        await save(slot, { enabled: input.enabled ?? false, config, installedAt: at, updatedAt: at });
        const out = recordOf(slot);
        return Object.keys(generated).length ? { ...out, generatedSecrets: generated } : out;
      });
    },

    /** Enables or disables at once (`enabled` omitted: flips). Enabling needs a valid config. */
    toggle: (id: string, enabled?: boolean): Promise<PluginRecord> =>
      change(id, async (slot, rec) => {
        const next = enabled ?? !rec.enabled;
        const checked = checkConfig(slot.def, rec.config);
        if (next && !checked.ok)
          throw configError(slot.def.id, checked.issues, 'Configure it first; invalid config');
        if (next !== rec.enabled) await save(slot, { ...rec, enabled: next, updatedAt: now() });
        return recordOf(slot);
      }),

    /** Replaces the config (validated; secrets kept when omitted or sent redacted, cleared by null). */
    configure: (id: string, config: Record<string, unknown>): Promise<PluginRecord> =>
      change(id, async (slot, rec) => {
        const checked = checkConfig(slot.def, mergeSecrets(slot.def, config, rec.config));
        if (!checked.ok) throw configError(slot.def.id, checked.issues);
        await save(slot, { ...rec, config: checked.config, updatedAt: now() });
        return recordOf(slot);
      }),

    /** Removes the plugin: stops it, deletes its record and its own data. */
    remove: (id: string): Promise<{ removed: string }> =>
      change(id, async (slot) => {
        await save(slot, null);
        await state.remove(dataKey(slot.def.id));
        resetFigures(slot);
        return { removed: slot.def.id };
      }),

    /** Each installed plugin's loaded state, contributions, last error and own figures. */
    runtime: () => ({
      stateError,
      plugins: installedSlots().map((s) => {
        const rec = stored.plugins[s.def.id]!;
        return slotRuntime(s, rec.enabled, checkConfig(s.def, rec.config).ok, clock);
      }),
    }),

    /** The tools of the active plugins, right now (the agent's `extraTools`). */
    tools: (): AgentTool[] => [...slots.values()].flatMap((s) => s.tools),

    /** Runs plugin `id`'s route `method path` with the raw query or body, validated by the route. */
    callRoute(id: string, method: string, path: string, input: unknown, signal?: AbortSignal) {
      const { slot, rec } = installed(id);
      return callPluginRoute(slot, rec.enabled, { method, path, input, signal }, clock, logger);
    },

    /** Installed plugins and whether they send data out, and where (for the security audit). */
    egress: () => installedSlots().map((s) => egressEntry(s, stored.plugins[s.def.id]!)),
  };
}

/** The plugin manager as the HTTP routes, the agent and the composition root see it. */
export type PluginManager = ReturnType<typeof createPluginManager>;
