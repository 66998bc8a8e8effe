/**
 * The configuration of every Quire program, once: the variable tables (server, relay, CLI), the
 * typed readers with one set of accepted words and one error type, and the loaders of the note
 * server and the relay. Runtime-neutral (no `node:*` import): Node, Bun, Deno, the Worker and the
 * relay all read their environment through here; docs/configuration.md is generated from it.
 */
export type { AgentConfig } from './agent.ts';
export type { ChannelsConfig } from './channels.ts';
export { CLI_VARIABLES } from './cli-variables.ts';
export { configurationPage } from './page.ts';
export { ConfigError, type Env, type HttpTimeouts, isLoopback, type LogLevel } from './read.ts';
export { LIMIT_VARIABLES, loadRelayConfig, type RelayConfig, RelayConfigError } from './relay.ts';
export { RELAY_VARIABLES } from './relay-variables.ts';
export { loadConfig, type ServerConfig } from './server.ts';
export { SERVER_VARIABLES, type Variable } from './variables.ts';
