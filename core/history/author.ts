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
 * A key by its name (e.g. `browser-direct`); a person by their name, with the device when the
 * change says which (`person:<id> (key:<id>)` as `Ann (laptop)`, the person alone once that key is
 * revoked; `person:<id> (device:Chrome on Linux)`, a session's, as `Ann (Chrome on Linux)`); MCP as
 * `<client> (<who>)`; `outside` as `another program`, `agent` and `api` as they are; `live:<a>|<b>`
 * (a live document's pause typed by several) as each of them; a revoked key stays `key <id>`.
 */
export function authorOf(by: string, names: KeyNames): string {
  if (by === 'outside') return 'another program';
  // A pause of a live document typed by several (core/live/room.ts): each named, in one line.
  const live = /^live:(.+)$/.exec(by);
  if (live)
    return live[1]!
      .split('|')
      .map((b) => authorOf(b, names))
      .join(', ');
  const key = /^key:(.+)$/.exec(by);
  if (key) return names(key[1]!) ?? `key ${key[1]}`;
  const person = /^person:(\S+)(?: \((key|device):(.+)\))?$/.exec(by);
  if (person) {
    const who = names(person[1]!) ?? `person ${person[1]}`;
    const device = person[2] === 'key' ? names(person[3]!) : person[3];
    return device ? `${who} (${device})` : who;
  }
  const mcp = /^mcp:(.*?) \((.+)\)$/.exec(by);
  if (mcp) return `${mcp[1]} (${authorOf(mcp[2]!, names)})`;
  return by.replace(':', ' ');
}
