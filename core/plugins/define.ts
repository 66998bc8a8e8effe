/**
 * `definePlugin`: checks a plugin definition once, when it is written, so a bad id or an
 * undeclared secret fails at start-up and never at the first request.
 */
import { CAPABILITIES, type PluginConfigSchema, type PluginDefinition } from './types.ts';

/** Names under `/api/v1/plugins` that are routes, not plugin ids. */
export const RESERVED_IDS: ReadonlySet<string> = new Set(['catalog', 'runtime', 'install']);

const ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** True for a string shaped like a plugin id (lookups still go through the catalog). */
export function isPluginIdShape(id: string): boolean {
  return id.length >= 2 && id.length <= 48 && ID.test(id) && !RESERVED_IDS.has(id);
}

/** The top-level field names of an object schema, when it is one. */
export function schemaFields(schema: PluginConfigSchema): string[] | null {
  const s = schema as unknown as { type?: string; entries?: Record<string, unknown> };
  if (!s.entries || !['object', 'strict_object', 'loose_object', 'object_with_rest'].includes(s.type ?? ''))
    return null;
  return Object.keys(s.entries);
}

/**
 * Declares a plugin. Embedders pass the result to `createPluginManager({plugins})` beside the
 * built-ins; it then appears in the catalog with `source: "code"`. Throws on a bad definition.
 */
export function definePlugin<S extends PluginConfigSchema>(def: PluginDefinition<S>): PluginDefinition<S> {
  const where = `definePlugin(${JSON.stringify(def.id)})`;
  if (typeof def.id !== 'string' || !isPluginIdShape(def.id)) {
    throw new Error(`${where}: the id must be kebab-case, 2 to 48 characters, and not a reserved name.`);
  }
  if (typeof def.name !== 'string' || def.name.trim() === '')
    throw new Error(`${where}: a name is required.`);
  if (typeof def.version !== 'string' || !SEMVER.test(def.version))
    throw new Error(`${where}: the version must be semver (e.g. 1.0.0).`);
  if (typeof def.description !== 'string') throw new Error(`${where}: a description is required.`);
  for (const c of def.capabilities) {
    if (!CAPABILITIES.includes(c)) throw new Error(`${where}: unknown capability "${c}".`);
  }
  const fields = schemaFields(def.configSchema);
  if (!fields) throw new Error(`${where}: configSchema must be a valibot object schema.`);
  for (const name of Object.keys(def.secrets ?? {})) {
    if (!fields.includes(name)) throw new Error(`${where}: secret "${name}" is not a field of configSchema.`);
  }
  if (typeof def.activate !== 'function') throw new Error(`${where}: activate must be a function.`);
  return Object.freeze({ ...def, capabilities: Object.freeze([...def.capabilities]) });
}
