/** What the plugin manager needs (a leaf of types, so the manager's modules share it). */
import type { RandomBytes } from '../crypto.ts';
import type { Egress } from '../net/egress.ts';
import type { NoteService } from '../notes/service.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
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
