/** The built-in catalog: plugins that ship with Quire and need only the ports the core is given. */
import type { PluginDefinition } from '../types.ts';
import { dailyNotes } from './daily-notes.ts';
import { outboundWebhooks } from './outbound-webhooks.ts';
import { unlinkedMentions } from './unlinked-mentions.ts';
import { webSearch } from './web-search.ts';

export { dailyNotes, outboundWebhooks, unlinkedMentions, webSearch };

/** Every built-in, in catalog order. */
export const builtinPlugins: readonly PluginDefinition[] = [
  outboundWebhooks,
  dailyNotes,
  unlinkedMentions,
  webSearch,
] as unknown as readonly PluginDefinition[];
