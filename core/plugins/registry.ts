/**
 * The plugins' state: the catalog's slots, the stored document (`plugins.json`) and whether it
 * was damaged, behind one mutex. Every change of a plugin's record goes through `change` and
 * `save`, which bring its live instance in line at once. The operations are in manager.ts.
 */
import { secureRandom } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { createMutex } from '../mutex.ts';
import type { Logger } from '../ports.ts';
import { builtinPlugins } from './builtins/index.ts';
import { checkConfig, configError } from './config.ts';
import { isPluginIdShape } from './define.ts';
import { pluginContext } from './host.ts';
import type { PluginManagerDeps } from './manager-deps.ts';
import { type PluginRecord, pluginRecord } from './records.ts';
import { activate, deactivate, newSlot, recordError, type Slot } from './runtime.ts';
import { parseState, STATE_KEY, type StoredPlugin, type StoredState, serializeState } from './state.ts';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export class PluginRegistry {
  readonly logger: Logger;
  readonly mutex = createMutex();
  readonly slots = new Map<string, Slot>();
  stored: StoredState = parseState(null);
  stateError: string | null = null;

  constructor(readonly deps: PluginManagerDeps) {
    this.logger = deps.logger ?? silent;
    for (const [defs, source] of [
      [deps.builtins ?? builtinPlugins, 'builtin'],
      [deps.plugins ?? [], 'code'],
    ] as const) {
      for (const def of defs) {
        if (this.slots.has(def.id)) throw new Error(`Two plugins share the id "${def.id}".`);
        this.slots.set(def.id, newSlot(def, source));
      }
    }
  }

  now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }

  /** The catalog entry for `id`: the first thing every operation does, before any I/O. */
  lookup(id: unknown): Slot {
    const slot = typeof id === 'string' ? this.slots.get(id) : undefined;
    if (slot) return slot;
    const shown = typeof id === 'string' && isPluginIdShape(id) ? `"${id}" ` : '';
    throw new DomainError(
      'PLUGIN_NOT_FOUND',
      `No plugin ${shown}in the catalog; GET /api/v1/plugins/catalog lists them.`,
    );
  }

  installed(id: unknown): { slot: Slot; rec: StoredPlugin } {
    const slot = this.lookup(id);
    const rec = this.stored.plugins[slot.def.id];
    if (rec) return { slot, rec };
    throw new DomainError(
      'PLUGIN_NOT_FOUND',
      `Plugin ${slot.def.id} is not installed; POST /api/v1/plugins/install {"id": "${slot.def.id}"}.`,
    );
  }

  /** Runs a change of plugin `id` alone, against the current record, refusing on damaged state. */
  change<T>(id: string, fn: (slot: Slot, rec: StoredPlugin) => Promise<T>): Promise<T> {
    this.installed(id);
    return this.mutex.run(async () => {
      if (this.stateError) {
        throw new DomainError(
          'CONFLICT',
          `Plugin state cannot change: ${this.stateError}. Fix or delete DATA_DIR/${STATE_KEY}.`,
        );
      }
      const { slot, rec } = this.installed(id);
      return fn(slot, rec);
    });
  }

  /** Stores plugin `id`'s record (null removes it), then brings its instance in line. */
  async save(slot: Slot, rec: StoredPlugin | null): Promise<void> {
    const plugins: Record<string, StoredPlugin> = Object.assign(Object.create(null), this.stored.plugins);
    if (rec) plugins[slot.def.id] = rec;
    else delete plugins[slot.def.id];
    const next: StoredState = { v: 1, plugins };
    await this.deps.state.put(STATE_KEY, serializeState(next));
    this.stored = next;
    await this.apply(slot, rec);
  }

  /** Active with its validated config when enabled; inactive otherwise. */
  async apply(slot: Slot, rec: StoredPlugin | null): Promise<void> {
    const { clock } = this.deps;
    const logger = this.logger;
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
    const ctx = pluginContext(slot, checked.config, { ...this.deps, logger });
    await activate(slot, ctx, clock, logger);
  }

  installedSlots(): Slot[] {
    return [...this.slots.values()].filter((s) => this.stored.plugins[s.def.id]);
  }

  recordOf(slot: Slot): PluginRecord {
    return pluginRecord(slot, this.stored.plugins[slot.def.id]!);
  }
}

export function resetFigures(slot: Slot): void {
  slot.lastError = null;
  slot.errorCount = 0;
  slot.hookCalls = 0;
}

/**
 * Installs a plugin from the catalog, disabled unless `enabled`. Secrets the plugin can
 * generate that were not given are generated and returned once, in `generatedSecrets`.
 */
export function installPlugin(
  reg: PluginRegistry,
  input: { id: string; config?: Record<string, unknown>; enabled?: boolean },
) {
  const slot = reg.lookup(input.id);
  const { def } = slot;
  return reg.mutex.run(async () => {
    if (reg.stateError) throw new DomainError('CONFLICT', `Plugin state cannot change: ${reg.stateError}.`);
    if (reg.stored.plugins[def.id]) {
      throw new DomainError(
        'CONFLICT',
        `Plugin ${def.id} is already installed; PUT /api/v1/plugins/${def.id}/config to change it.`,
      );
    }
    let config: Record<string, unknown> = { ...input.config };
    const generated: Record<string, string> = {};
    for (const [name, field] of Object.entries(def.secrets ?? {})) {
      if (field.generate && (config[name] === undefined || config[name] === null)) {
        config[name] = generated[name] = field.generate(reg.deps.random ?? secureRandom);
      }
    }
    const checked = checkConfig(def, config);
    if (checked.ok) config = checked.config;
    else if (input.config !== undefined || input.enabled) throw configError(def.id, checked.issues);
    const at = reg.now();
    resetFigures(slot);
    await reg.save(slot, { enabled: input.enabled ?? false, config, installedAt: at, updatedAt: at });
    const out = reg.recordOf(slot);
    return Object.keys(generated).length ? { ...out, generatedSecrets: generated } : out;
  });
}
