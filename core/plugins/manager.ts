/**
 * The plugin manager: the catalog (built-ins plus plugins registered in code), install, toggle,
 * configure and remove, persisted as one atomically replaced document; live contributions
 * (tools, hooks, routes) that follow every change at once, with each plugin's errors isolated.
 */
import type { AgentTool } from '../agent/types.ts';
import { checkConfig, configError, mergeSecrets } from './config.ts';
import type { PluginManagerDeps } from './manager-deps.ts';
import { catalogEntry, egressEntry, type PluginRecord } from './records.ts';
import { installPlugin, PluginRegistry, resetFigures } from './registry.ts';
import { callPluginRoute } from './routes.ts';
import { deactivate, dispatchHook, slotRuntime } from './runtime.ts';
import { dataKey, parseState, STATE_KEY } from './state.ts';

export type { PluginManagerDeps } from './manager-deps.ts';

/** Builds the plugin manager. Call `load()` once before use and `stop()` at shutdown. */
export function createPluginManager(deps: PluginManagerDeps) {
  const { notes, state, clock } = deps;
  const reg = new PluginRegistry(deps);
  const { slots, mutex, logger } = reg;
  let unsubscribe: (() => void) | null = null;

  return {
    /** Reads the stored state, activates the enabled plugins, and starts delivering note events. */
    async load(): Promise<void> {
      try {
        reg.stored = parseState(await state.get(STATE_KEY));
      } catch (err) {
        reg.stateError = err instanceof Error ? err.message : String(err);
        logger.error('plugins are off: their state is damaged', { error: reg.stateError, key: STATE_KEY });
      }
      for (const slot of slots.values()) await reg.apply(slot, reg.stored.plugins[slot.def.id] ?? null);
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
    catalog: () => [...slots.values()].map((s) => catalogEntry(s, reg.stored.plugins[s.def.id])),

    /** The installed plugins, sorted by id; secrets redacted. */
    list: (): PluginRecord[] =>
      reg
        .installedSlots()
        .map((s) => reg.recordOf(s))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),

    /** One installed plugin; PLUGIN_NOT_FOUND when unknown or not installed. */
    get: (id: string): PluginRecord => reg.recordOf(reg.installed(id).slot),

    /**
     * Installs a plugin from the catalog, disabled unless `enabled`. Secrets the plugin can
     * generate that were not given are generated and returned once, in `generatedSecrets`.
     */
    install: (input: { id: string; config?: Record<string, unknown>; enabled?: boolean }) =>
      installPlugin(reg, input),

    /** Enables or disables at once (`enabled` omitted: flips). Enabling needs a valid config. */
    toggle: (id: string, enabled?: boolean): Promise<PluginRecord> =>
      reg.change(id, async (slot, rec) => {
        const next = enabled ?? !rec.enabled;
        const checked = checkConfig(slot.def, rec.config);
        if (next && !checked.ok)
          throw configError(slot.def.id, checked.issues, 'Configure it first; invalid config');
        if (next !== rec.enabled) await reg.save(slot, { ...rec, enabled: next, updatedAt: reg.now() });
        return reg.recordOf(slot);
      }),

    /** Replaces the config (validated; secrets kept when omitted or sent redacted, cleared by null). */
    configure: (id: string, config: Record<string, unknown>): Promise<PluginRecord> =>
      reg.change(id, async (slot, rec) => {
        const checked = checkConfig(slot.def, mergeSecrets(slot.def, config, rec.config));
        if (!checked.ok) throw configError(slot.def.id, checked.issues);
        await reg.save(slot, { ...rec, config: checked.config, updatedAt: reg.now() });
        return reg.recordOf(slot);
      }),

    /** Removes the plugin: stops it, deletes its record and its own data. */
    remove: (id: string): Promise<{ removed: string }> =>
      reg.change(id, async (slot) => {
        await reg.save(slot, null);
        await state.remove(dataKey(slot.def.id));
        resetFigures(slot);
        return { removed: slot.def.id };
      }),

    /** Each installed plugin's loaded state, contributions, last error and own figures. */
    runtime: () => ({
      stateError: reg.stateError,
      plugins: reg.installedSlots().map((s) => {
        const rec = reg.stored.plugins[s.def.id]!;
        return slotRuntime(s, rec.enabled, checkConfig(s.def, rec.config).ok, clock);
      }),
    }),

    /** The tools of the active plugins, right now (the agent's `extraTools`). */
    tools: (): AgentTool[] => [...slots.values()].flatMap((s) => s.tools),

    /** Runs plugin `id`'s route `method path` with the raw query or body, validated by the route. */
    callRoute(id: string, method: string, path: string, input: unknown, signal?: AbortSignal) {
      const { slot, rec } = reg.installed(id);
      return callPluginRoute(slot, rec.enabled, { method, path, input, signal }, clock, logger);
    },

    /** Installed plugins and whether they send data out, and where (for the security audit). */
    egress: () => reg.installedSlots().map((s) => egressEntry(s, reg.stored.plugins[s.def.id]!)),
  };
}

/** The plugin manager as the HTTP routes, the agent and the composition root see it. */
export type PluginManager = ReturnType<typeof createPluginManager>;
