/** How plugins are answered: the plugin record, the catalog entry, the egress entry. */
import { checkConfig, configJsonSchema, redactConfig } from './config.ts';
import type { Slot } from './runtime.ts';
import type { StoredPlugin } from './state.ts';

/** What a plugin record and a catalog entry both say of the definition. */
function describePlugin({ def, source }: Slot) {
  return { id: def.id, name: def.name, version: def.version, description: def.description, source };
}

/** An installed plugin (docs/reference/plugins.md, "Plugin record"); secrets redacted. */
export function pluginRecord(slot: Slot, rec: StoredPlugin) {
  const { def } = slot;
  return {
    ...describePlugin(slot),
    enabled: rec.enabled,
    /** Whether the stored config passes the schema (it must, to enable). */
    configured: checkConfig(def, rec.config).ok,
    config: redactConfig(def, rec.config),
    configSchema: configJsonSchema(def),
    capabilities: [...def.capabilities],
    installedAt: rec.installedAt,
    updatedAt: rec.updatedAt,
  };
}

/** The answer of install, toggle, config and `GET /:id`. */
export type PluginRecord = ReturnType<typeof pluginRecord>;

/** One entry of `GET /plugins/catalog`. */
export function catalogEntry(slot: Slot, rec: StoredPlugin | undefined) {
  const { def } = slot;
  return {
    ...describePlugin(slot),
    capabilities: [...def.capabilities],
    configSchema: configJsonSchema(def),
    installed: rec !== undefined,
    enabled: rec?.enabled ?? false,
  };
}

/** Whether an installed plugin sends data out, and where (for the security audit). */
export function egressEntry(slot: Slot, rec: StoredPlugin) {
  const { def } = slot;
  const network = def.capabilities.includes('network');
  const checked = checkConfig(def, rec.config);
  let destinations: string[] = [];
  if (network && checked.ok) {
    try {
      destinations = def.destinations?.(checked.config) ?? [];
    } catch {
      destinations = [];
    }
  }
  return {
    id: def.id,
    name: def.name,
    enabled: rec.enabled,
    egress: network,
    destinations,
    allowPrivateNetwork: rec.config.allowPrivateNetwork === true,
  };
}
