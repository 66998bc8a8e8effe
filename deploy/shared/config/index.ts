/**
 * The configuration of every Quire program, once: the variable table (server, relay, CLI), the
 * readers derived from it as valibot schemas with one set of accepted words and one error type, and the loaders of the note
 * server and the relay. Runtime-neutral (no `node:*` import): Node, Bun, Deno, the Worker and the
 * relay all read their environment through here; docs/reference/configuration.md is generated from it.
 */
export type { AgentConfig } from './agent.ts';
export { configurationPage } from './page.ts';
export {
  ConfigError,
  type Env,
  type HttpTimeouts,
  type LogLevel,
  readVariables,
} from './read.ts';
export { LIMIT_VARIABLES, loadRelayConfig, type RelayConfig, RelayConfigError } from './relay.ts';
export { type ChannelsConfig, loadConfig, type ServerConfig } from './server.ts';
export { CLI_VARIABLES, RELAY_VARIABLES, SERVER_VARIABLES, VARIABLES, type Variable } from './variables.ts';
