/**
 * Who made a change, for people: every surface that shows an author (the REST history and
 * trash, the change feed, the MCP history tools, the agent's history tools) names it here, so a
 * raw key id never reaches a person or a model where a name is known.
 */

/**
 * The name of an API key by its id (the device it was made for), or of a person by theirs
 * (`psn_…`); undefined for an unknown one.
 */
export type KeyNames = (id: string) => string | undefined;

/** No names known: every key reads as `key <id>`. */
export const noKeyNames: KeyNames = () => undefined;

/**
 * A key by its name (e.g. `browser-direct`), `mcp:<client> (key:<id>)` as `<client> (<key name>)`,
 * `person:<id>` by the person's name, `outside` as `another program`, `agent` and `api` as they
 * are; a revoked key stays `key <id>`.
 */
export function authorOf(by: string, names: KeyNames): string {
  const keyOf = (id: string) => names(id) ?? `key ${id}`;
  if (by === 'outside') return 'another program';
  const key = /^key:(.+)$/.exec(by);
  if (key) return keyOf(key[1]!);
  const mcp = /^mcp:(.*) \(key:(.+)\)$/.exec(by);
  if (mcp) return `${mcp[1]} (${keyOf(mcp[2]!)})`;
  const person = /^person:(.+)$/.exec(by);
  if (person) return names(person[1]!) ?? `person ${person[1]}`;
  return by.replace(':', ' ');
}
