/**
 * One plugin's life in the running server: activation, its contributions (only those its
 * capabilities allow), errors isolated and recorded (last error, count), runtime figures.
 */

import type { AgentTool } from '../agent/types.ts';
import { isDomainError } from '../errors.ts';
import type { NoteEvent } from '../notes/service.ts';
import type { Clock, Logger } from '../ports.ts';
import type {
  NoteHooks,
  PluginContext,
  PluginDefinition,
  PluginInstance,
  PluginRoute,
  PluginSource,
} from './types.ts';

/** The last error a plugin raised (in a hook, a tool, a route, activation or background work). */
export interface PluginError {
  where: string;
  message: string;
  /** ISO 8601 UTC. */
  at: string;
}

/** A plugin of the catalog and, when enabled, its live instance. */
export interface Slot {
  def: PluginDefinition;
  source: PluginSource;
  instance: PluginInstance | null;
  tools: AgentTool[];
  hooks: NoteHooks;
  routes: PluginRoute[];
  activatedAt: number | null;
  lastError: PluginError | null;
  errorCount: number;
  hookCalls: number;
  /** Bumped on every activation and deactivation; stale async work checks it. */
  generation: number;
}

const ROUTE_PATH = /^(?:\/[a-z0-9][a-z0-9-]*)+$/;
const MANAGEMENT = /^\/(?:toggle|config)(?:\/|$)/;
const MAX_ERROR_CHARS = 300;

/** A fresh, inactive slot. */
export function newSlot(def: PluginDefinition, source: PluginSource): Slot {
  return {
    def,
    source,
    instance: null,
    tools: [],
    hooks: {},
    routes: [],
    activatedAt: null,
    lastError: null,
    errorCount: 0,
    hookCalls: 0,
    generation: 0,
  };
}

/** Records `err` as the slot's last error and logs it. */
export function recordError(slot: Slot, where: string, err: unknown, clock: Clock, logger?: Logger): void {
  const raw = err instanceof Error ? err.message : String(err);
  const message = raw.length > MAX_ERROR_CHARS ? `${raw.slice(0, MAX_ERROR_CHARS)}…` : raw;
  slot.lastError = { where, message, at: new Date(clock.now()).toISOString() };
  slot.errorCount++;
  logger?.warn('plugin error', { plugin: slot.def.id, where, error: message });
}

/** Stops the slot's instance (errors recorded, never thrown). */
export async function deactivate(slot: Slot, clock: Clock, logger?: Logger): Promise<void> {
  const inst = slot.instance;
  slot.generation++;
  slot.instance = null;
  slot.tools = [];
  slot.hooks = {};
  slot.routes = [];
  slot.activatedAt = null;
  if (!inst?.stop) return;
  try {
    await inst.stop();
  } catch (err) {
    recordError(slot, 'stop', err, clock, logger);
  }
}

/** Activates the slot with `ctx`; on failure the slot stays inactive and the error is recorded. */
export async function activate(
  slot: Slot,
  ctx: PluginContext<Record<string, unknown>>,
  clock: Clock,
  logger?: Logger,
): Promise<void> {
  await deactivate(slot, clock, logger);
  const generation = slot.generation;
  let inst: PluginInstance;
  try {
    inst = await slot.def.activate(ctx);
  } catch (err) {
    recordError(slot, 'activate', err, clock, logger);
    return;
  }
  if (slot.generation !== generation) {
    // Deactivated while it was starting: stop the late instance.
    await Promise.resolve(inst.stop?.()).catch((err) => recordError(slot, 'stop', err, clock, logger));
    return;
  }
  const caps = slot.def.capabilities;
  const refuse = (what: string, cap: string) =>
    recordError(
      slot,
      'activate',
      new Error(`contributes ${what} without the "${cap}" capability`),
      clock,
      logger,
    );
  slot.instance = inst;
  slot.activatedAt = clock.now();
  if (inst.tools?.length && !caps.includes('tools')) refuse('tools', 'tools');
  else slot.tools = (inst.tools ?? []).map((t) => guardTool(slot, t, clock, logger));
  if (inst.hooks && Object.keys(inst.hooks).length && !caps.includes('hooks')) refuse('hooks', 'hooks');
  else slot.hooks = inst.hooks ?? {};
  if (inst.routes?.length && !caps.includes('routes')) refuse('routes', 'routes');
  else {
    slot.routes = (inst.routes ?? []).filter((r) => {
      const good = ROUTE_PATH.test(r.path) && !MANAGEMENT.test(r.path);
      if (!good)
        recordError(slot, 'activate', new Error(`route path ${r.path} is not allowed`), clock, logger);
      return good;
    });
  }
}

/** The tool with its failures (other than DomainErrors, which are answers) recorded. */
function guardTool(slot: Slot, tool: AgentTool, clock: Clock, logger?: Logger): AgentTool {
  return {
    ...tool,
    run: async (args, ctx) => {
      try {
        return await tool.run(args, ctx);
      } catch (err) {
        if (!isDomainError(err)) recordError(slot, `tool ${tool.name}`, err, clock, logger);
        throw err;
      }
    },
  };
}

/** Runs the slot's hook for `event` after the current operation; a throw is recorded, not raised. */
export function dispatchHook(slot: Slot, event: NoteEvent, clock: Clock, logger?: Logger): void {
  const hook = slot.hooks[event.type];
  if (!hook) return;
  slot.hookCalls++;
  const generation = slot.generation;
  void Promise.resolve()
    .then(() => (slot.generation === generation ? hook(event) : undefined))
    .catch((err) => recordError(slot, `hook ${event.type}`, err, clock, logger));
}

/** What `GET /plugins/runtime` says about one installed plugin. */
export function slotRuntime(slot: Slot, enabled: boolean, configured: boolean, clock: Clock) {
  let stats: unknown = null;
  try {
    stats = slot.instance?.stats?.() ?? null;
  } catch (err) {
    stats = { error: err instanceof Error ? err.message : String(err) };
  }
  const state = slot.instance ? 'active' : !enabled ? 'disabled' : !configured ? 'unconfigured' : 'error';
  return {
    id: slot.def.id,
    enabled,
    loaded: slot.instance !== null,
    state,
    activatedAt: slot.activatedAt === null ? null : new Date(slot.activatedAt).toISOString(),
    uptimeSeconds: slot.activatedAt === null ? 0 : Math.floor((clock.now() - slot.activatedAt) / 1000),
    contributions: {
      tools: slot.tools.map((t) => t.name),
      hooks: Object.keys(slot.hooks),
      routes: slot.routes.map((r) => `${r.method} /api/v1/plugins/${slot.def.id}${r.path}`),
    },
    hookCalls: slot.hookCalls,
    errorCount: slot.errorCount,
    lastError: slot.lastError,
    stats,
  };
}

/** One plugin's runtime entry. */
export type PluginRuntime = ReturnType<typeof slotRuntime>;
