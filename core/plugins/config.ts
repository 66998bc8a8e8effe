/**
 * Plugin config: validation against the plugin's schema (every bad field named), write-only
 * secrets (answered redacted, kept when a client sends the redacted value back), JSON Schema.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { DomainError } from '../errors.ts';
import type { PluginDefinition } from './types.ts';

/** What a secret field that is set looks like in every answer. */
export const REDACTED = '••••••••';

/** One bad config field. */
export interface ConfigIssue {
  field: string;
  message: string;
}

/** The issues of `value` against the plugin's schema, or the parsed config. */
export function checkConfig(
  def: PluginDefinition,
  value: unknown,
): { ok: true; config: Record<string, unknown> } | { ok: false; issues: ConfigIssue[] } {
  // Unknown fields are refused, not dropped: a typo in a config must not vanish silently.
  const entries = (def.configSchema as { entries?: Record<string, unknown> }).entries;
  if (entries && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const unknown = Object.keys(value).filter((k) => !Object.hasOwn(entries, k));
    if (unknown.length) {
      return {
        ok: false,
        issues: unknown.map((k) => ({ field: k.slice(0, 64), message: 'unknown field' })),
      };
    }
  }
  const r = v.safeParse(def.configSchema, value);
  if (r.success) return { ok: true, config: r.output };
  return {
    ok: false,
    issues: r.issues.map((i) => ({ field: v.getDotPath(i) ?? '(config)', message: i.message })),
  };
}

/** A 400 naming every bad field. */
export function configError(id: string, issues: ConfigIssue[], lead = 'Invalid config'): DomainError {
  const fields = [...new Set(issues.map((i) => i.field))].join(', ');
  const first = issues[0];
  return new DomainError(
    'VALIDATION_ERROR',
    `${lead} for plugin ${id}: ${fields}${first ? ` (${first.field}: ${first.message})` : ''}.`,
    { issues },
  );
}

/**
 * The config a client sent, with secrets resolved against the stored config: a secret that is
 * absent or equal to the redacted value keeps the stored value; `null` clears it.
 */
export function mergeSecrets(
  def: PluginDefinition,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...incoming };
  for (const name of Object.keys(def.secrets ?? {})) {
    const sent = out[name];
    if (sent === undefined || sent === REDACTED) {
      if (stored[name] === undefined) delete out[name];
      else out[name] = stored[name];
    } else if (sent === null) delete out[name];
  }
  return out;
}

/** The config as answered: every secret that is set replaced by `REDACTED`. */
export function redactConfig(
  def: PluginDefinition,
  config: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...config };
  for (const name of Object.keys(def.secrets ?? {})) {
    if (out[name] !== undefined && out[name] !== null) out[name] = REDACTED;
  }
  return out;
}

const jsonSchemas = new WeakMap<PluginDefinition, Record<string, unknown>>();

/** The config schema as JSON Schema (draft-07), secrets marked `writeOnly`. */
export function configJsonSchema(def: PluginDefinition): Record<string, unknown> {
  let s = jsonSchemas.get(def);
  if (!s) {
    s = toJsonSchema(def.configSchema, { errorMode: 'ignore' }) as Record<string, unknown>;
    const props = s.properties as Record<string, Record<string, unknown>> | undefined;
    for (const name of Object.keys(def.secrets ?? {})) {
      const p = props?.[name];
      if (p) p.writeOnly = true;
    }
    jsonSchemas.set(def, s);
  }
  return structuredClone(s);
}
