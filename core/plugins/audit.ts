import type { PluginFact } from '../security/types.ts';
import type { PluginManager } from './manager.ts';

/** What the security audit learns from the plugins: which are on and which call out (egress). */
export function pluginFacts(plugins: Pick<PluginManager, 'egress'>): PluginFact[] {
  return plugins.egress().map(({ id, enabled, egress }) => ({ id, enabled, egress }));
}
