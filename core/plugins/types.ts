/**
 * The plugin contract. A plugin is a typed definition (id, name, version, description, a valibot
 * config schema, capabilities) whose `activate` turns a valid config into contributions: agent
 * tools, note lifecycle hooks, and routes under `/api/v1/plugins/:id/...`. Framework-free.
 */
import type * as v from 'valibot';
import type { AgentTool } from '../agent/types.ts';
import type { RandomBytes } from '../crypto.ts';
import type { NoteSummary } from '../notes/note-index.ts';
import type { Note, NoteEvent } from '../notes/service.ts';
import type { Clock, Logger } from '../ports.ts';
import type { SearchHit } from '../search/types.ts';

/**
 * What a plugin may do. Contributions and ports a plugin did not declare are withheld:
 * without `network` its `fetch` refuses, without `notes:write` its note writes refuse.
 */
export type PluginCapability = 'tools' | 'hooks' | 'routes' | 'network' | 'notes:read' | 'notes:write';

/** Every capability, in a stable order. */
export const CAPABILITIES: readonly PluginCapability[] = [
  'tools',
  'hooks',
  'routes',
  'network',
  'notes:read',
  'notes:write',
];

/** Resolves a host name to its IP addresses (the Node root uses node:dns). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** The note operations a plugin gets; writes need the `notes:write` capability. */
export interface PluginNotes {
  /** Every note's summary (links resolved through the link graph, backlinks), sorted by path. */
  list(): NoteSummary[];
  /** One note with its body; throws NOTE_NOT_FOUND. */
  get(path: string): Promise<Note>;
  /** Full-text search (limit 1 to 100, default 20). */
  search(q: string, limit?: number): Promise<SearchHit[]>;
  /** A note path from a path, a path without `.md`, a title or a file name; throws NOTE_NOT_FOUND. */
  resolve(ref: string): string;
  /** Creates a note; throws NOTE_ALREADY_EXISTS. */
  create(path: string, content: string): Promise<Note>;
  /** Replaces a note's body (frontmatter kept); `ifMatch` is a checksum. */
  update(path: string, content: string, ifMatch?: string): Promise<Note>;
}

/** A plugin's own persisted data (one JSON value; removed with the plugin). */
export interface PluginData {
  /** The stored value, or null when nothing was stored. */
  get(): Promise<unknown>;
  /** Replaces the stored value atomically. */
  put(value: unknown): Promise<void>;
}

/** What `activate` is given. */
export interface PluginContext<C> {
  id: string;
  /** The validated config (the schema's output, defaults filled). */
  config: C;
  notes: PluginNotes;
  clock: Clock;
  /** Lines carry `plugin: id`. Never log secrets. */
  logger: Logger;
  /** The HTTP client; refuses unless the plugin declared `network`. */
  fetch: typeof globalThis.fetch;
  random: RandomBytes;
  /** Absent on runtimes without DNS access; egress checks then fall back to names and literals. */
  resolveHost?: ResolveHost;
  data: PluginData;
  /** The server's version (for a User-Agent). */
  version: string;
  /** Records an error of background work in `runtime` (last error and count) without throwing. */
  reportError(where: string, err: unknown): void;
}

/** Hooks called after a note operation succeeded; they never delay or fail it. */
export type NoteHooks = Partial<Record<NoteEvent['type'], (event: NoteEvent) => void | Promise<void>>>;

/** HTTP methods a plugin route may answer. */
export type PluginRouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A route under `/api/v1/plugins/:id/<path>`, protected like every plugin route. */
export interface PluginRoute<S extends v.GenericSchema = v.GenericSchema> {
  method: PluginRouteMethod;
  /** `/mentions`: one or more lowercase segments, no parameters; not `/toggle` or `/config`. */
  path: string;
  description: string;
  /** Schema of the query (GET, DELETE: an object of strings) or of the JSON body (POST, PUT). */
  input: S;
  /** Answers `data` of the success envelope; throw a DomainError for a failure. */
  run(input: v.InferOutput<S>, ctx: { signal?: AbortSignal }): Promise<unknown>;
}

/** What an active plugin contributes. */
export interface PluginInstance {
  tools?: AgentTool[];
  hooks?: NoteHooks;
  routes?: PluginRoute[];
  /** Plugin-specific runtime figures (e.g. deliveries), shown in `GET /plugins/runtime`. */
  stats?(): unknown;
  /** Called on disable, reconfigure, remove and shutdown: stop timers, abort requests. */
  stop?(): void | Promise<void>;
}

/** A config schema: a valibot object schema (optional fields with defaults make `{}` valid). */
export type PluginConfigSchema = v.GenericSchema<Record<string, unknown>, Record<string, unknown>>;

/** A secret config field: write-only, answered redacted. */
export interface SecretField {
  /** Generates a value at install when none is given (shown once, in the install answer). */
  generate?: (random: RandomBytes) => string;
}

/** A plugin. Build one with `definePlugin`. */
export interface PluginDefinition<S extends PluginConfigSchema = PluginConfigSchema> {
  /** kebab-case, 2 to 48 characters; the key in the catalog and in URLs. */
  id: string;
  name: string;
  /** Semver, e.g. `1.0.0`. */
  version: string;
  description: string;
  capabilities: readonly PluginCapability[];
  configSchema: S;
  /** Top-level config fields that are secret (write-only). */
  secrets?: Readonly<Record<string, SecretField>>;
  /** Where it sends data, from its config (for the security audit); only for `network` plugins. */
  destinations?(config: v.InferOutput<S>): string[];
  /** Turns a valid config into contributions; called on enable, on reconfigure, and at start. */
  activate(ctx: PluginContext<v.InferOutput<S>>): PluginInstance | Promise<PluginInstance>;
}

/** A plugin in the catalog, with where it came from. */
export type PluginSource = 'builtin' | 'code';
