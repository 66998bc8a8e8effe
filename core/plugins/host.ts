/**
 * What the plugin manager hands each plugin: its notes facade, fetch, data and logger, each
 * withheld or refused where the plugin did not declare the capability.
 */
import { resolveNote } from '../agent/tools.ts';
import { type RandomBytes, secureRandom } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import type { Egress } from '../net/egress.ts';
import type { NoteService } from '../notes/service.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
import { checkBody } from '../schemas.ts';
import { SearchArgs } from '../search/schemas.ts';
import { recordError, type Slot } from './runtime.ts';
import { dataKey } from './state.ts';
import type { PluginCapability, PluginContext, PluginData, PluginNotes, ResolveHost } from './types.ts';

const denied = (id: string, cap: PluginCapability): DomainError =>
  new DomainError('FORBIDDEN', `Plugin ${id} did not declare the "${cap}" capability.`);

/** The note operations of plugin `id`; writes refuse without `notes:write`. */
export function pluginNotes(notes: NoteService, id: string, caps: readonly PluginCapability[]): PluginNotes {
  const canWrite = caps.includes('notes:write');
  return {
    list: () => notes.list().items,
    get: (path) => notes.get(path),
    search: async (q, limit) => {
      const args = checkBody(SearchArgs, { q, limit });
      return notes.search(args.q, args.limit);
    },
    resolve: (ref) => resolveNote(notes, ref),
    async create(path, content) {
      if (!canWrite) throw denied(id, 'notes:write');
      return notes.withActor(`plugin:${id}`, () => notes.create(path, content));
    },
    async update(path, content, ifMatch) {
      if (!canWrite) throw denied(id, 'notes:write');
      return notes.withActor(`plugin:${id}`, () => notes.update(path, { content }, ifMatch));
    },
  };
}

/** The HTTP client of plugin `id`: the real one with `network`, else one that refuses. */
export function pluginFetch(
  fetchImpl: typeof globalThis.fetch,
  id: string,
  caps: readonly PluginCapability[],
): typeof globalThis.fetch {
  if (caps.includes('network')) return fetchImpl;
  return () => Promise.reject(denied(id, 'network'));
}

/** Plugin `id`'s own data under its own key. */
export function pluginData(state: StateStore, id: string): PluginData {
  const key = dataKey(id);
  return {
    async get() {
      const text = await state.get(key);
      if (text === null) return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return null;
      }
    },
    async put(value) {
      await state.put(key, JSON.stringify(value));
    },
  };
}

/** A logger whose lines carry `plugin: id`. */
export function pluginLogger(logger: Logger, id: string): Logger {
  const wrap =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, fields?: Record<string, unknown>): void =>
      logger[level](msg, { plugin: id, ...fields });
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

/** The ports of the plugin manager that plugins get a share of. */
export interface HostPorts {
  notes: NoteService;
  state: StateStore;
  clock: Clock;
  logger: Logger;
  fetch?: typeof globalThis.fetch;
  random?: RandomBytes;
  resolveHost?: ResolveHost;
  /** The one egress policy (core/net/egress.ts): when given, it is the plugins' fetch. */
  egress?: Egress;
  version?: string;
}

/** What `activate` gets for the plugin in `slot` with its validated `config`. */
export function pluginContext(
  slot: Slot,
  config: Record<string, unknown>,
  host: HostPorts,
): PluginContext<Record<string, unknown>> {
  const { id, capabilities } = slot.def;
  // Under the egress policy the connection goes to the checked address; the plugin's own
  // allowPrivateNetwork switch is the only way past the private-address refusal.
  const fetchImpl = host.egress
    ? host.egress.fetchFn({ allowPrivate: config.allowPrivateNetwork === true })
    : (host.fetch ?? ((input, init) => globalThis.fetch(input, init)));
  return {
    id,
    config,
    notes: pluginNotes(host.notes, id, capabilities),
    clock: host.clock,
    logger: pluginLogger(host.logger, id),
    fetch: pluginFetch(fetchImpl, id, capabilities),
    random: host.random ?? secureRandom,
    resolveHost: host.resolveHost,
    data: pluginData(host.state, id),
    version: host.version ?? '0.0.0',
    reportError: (where, err) => recordError(slot, where, err, host.clock, host.logger),
  };
}
