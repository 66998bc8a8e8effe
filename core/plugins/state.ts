/**
 * The plugins' persisted state: one JSON document under one StateStore key, replaced atomically
 * on every change. A plugin's own data lives under its own key and goes with it on remove.
 */
import * as v from 'valibot';
import { parseJsonOr } from '../json.ts';

/** The key of the installed plugins' document. */
export const STATE_KEY = 'plugins.json';

/** The key of one plugin's own data. */
export const dataKey = (id: string): string => `plugin.${id}.json`;

const StoredPlugin = v.object({
  enabled: v.boolean(),
  config: v.record(v.string(), v.unknown()),
  installedAt: v.string(),
  updatedAt: v.string(),
});

const StoredState = v.object({
  v: v.literal(1),
  plugins: v.record(v.string(), StoredPlugin),
});

/** One installed plugin as stored. */
export type StoredPlugin = v.InferOutput<typeof StoredPlugin>;

/** The whole stored document. */
export type StoredState = v.InferOutput<typeof StoredState>;

/** Parses the stored text; null text is an empty state. Throws an Error naming the problem. */
export function parseState(text: string | null): StoredState {
  if (text === null) return { v: 1, plugins: {} };
  const data = parseJsonOr(text, () => new Error(`${STATE_KEY} is not valid JSON`));
  const r = v.safeParse(StoredState, data);
  if (!r.success) {
    const i = r.issues[0]!;
    throw new Error(`${STATE_KEY} is damaged at ${v.getDotPath(i) ?? '(root)'}: ${i.message}`);
  }
  // Null prototype: ids come from the file and must never reach Object.prototype.
  const plugins: Record<string, StoredPlugin> = Object.create(null);
  for (const [id, p] of Object.entries(r.output.plugins)) plugins[id] = p;
  return { v: 1, plugins };
}

/** The text to store. */
export function serializeState(state: StoredState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}
