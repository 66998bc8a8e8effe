/** The plugin system: the contract, the manager, the built-in catalog. */
export {
  builtinPlugins,
  dailyNotes,
  outboundWebhooks,
  unlinkedMentions,
  webSearch,
} from './builtins/index.ts';
export { generateWebhookSecret, signWebhook } from './builtins/webhook-sign.ts';
export { REDACTED } from './config.ts';
export { definePlugin } from './define.ts';
export { guardedFetch, isPrivateAddress } from './egress.ts';
export { createPluginManager, type PluginManager, type PluginManagerDeps } from './manager.ts';
export type { PluginRecord } from './records.ts';
export type { PluginError, PluginRuntime } from './runtime.ts';
export { InstallPluginBody, PluginConfigBody, TogglePluginBody } from './schemas.ts';
export type * from './types.ts';
