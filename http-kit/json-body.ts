import type { Context } from 'hono';
import type * as v from 'valibot';
import { DomainError } from '../core/errors.ts';
import { parseJsonBody } from '../core/json.ts';
import { checkJsonDepth } from '../core/json-depth.ts';
import { checkBody } from '../core/schemas.ts';

type AnySchema = {
  type?: string;
  entries?: Record<string, AnySchema>;
  wrapped?: AnySchema;
  item?: AnySchema;
  key?: string;
  options?: AnySchema[];
};

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);

/**
 * The dotted paths of the fields in `data` that `schema` does not declare, through optional and
 * nullable wrappers, nested objects, arrays and variants (by their discriminator). `looseObject`
 * and `record` schemas accept any field by design, so nothing below them is reported.
 */
export function unknownFields(schema: AnySchema, data: unknown, at = '', out: string[] = []): string[] {
  if (out.length >= 10) return out;
  const s = schema.wrapped && !schema.entries ? schema.wrapped : schema;
  if (s !== schema) return unknownFields(s, data, at, out);
  if ((s.type === 'object' || s.type === 'strict_object') && s.entries && isPlainObject(data)) {
    for (const [k, v] of Object.entries(data)) {
      const path = at ? `${at}.${k}` : k;
      const entry = Object.hasOwn(s.entries, k) ? s.entries[k] : undefined;
      if (!entry) out.push(path.slice(0, 128));
      else unknownFields(entry, v, path, out);
    }
  } else if (s.type === 'array' && s.item && Array.isArray(data)) {
    for (const [i, x] of data.entries()) unknownFields(s.item, x, `${at}.${i}`, out);
  } else if (s.type === 'variant' && s.key && s.options && isPlainObject(data)) {
    const tag = data[s.key];
    const option = s.options.find((o) => o.entries?.[s.key!] && literalOf(o.entries[s.key!]!) === tag);
    if (option) unknownFields(option, data, at, out);
  }
  return out;
}

const literalOf = (s: AnySchema): unknown => (s as { literal?: unknown }).literal;

/**
 * The one strict JSON-body reader of every route: 400 INVALID_JSON for bad JSON, 400
 * VALIDATION_ERROR naming every field the body's schema does not declare (a typo never vanishes),
 * then the schema's own checks. The documented exception: `looseObject` schemas (inbound provider
 * webhooks, whose senders add fields) and records (plugin config, checked by the plugin's schema).
 */
export function parseStrictBody<S extends v.GenericSchema>(schema: S, text: string): v.InferOutput<S> {
  const data = parseJsonBody(text);
  checkJsonDepth(data, 'The request body');
  const unknown = unknownFields(schema as AnySchema, data);
  if (unknown.length) {
    const names = unknown.map((k) => JSON.stringify(k)).join(', ');
    throw new DomainError(
      'VALIDATION_ERROR',
      `Unknown field${unknown.length > 1 ? 's' : ''} ${names}: check the spelling against the API reference.`,
      { issues: unknown.map((field) => ({ field, message: 'unknown field' })) },
    );
  }
  // Parsed once: the schema checks the same value (a large note body is not parsed twice).
  return checkBody(schema, data);
}

/** Reads the request body strictly (see parseStrictBody). */
export async function readStrictJson<S extends v.GenericSchema>(
  c: Context,
  schema: S,
): Promise<v.InferOutput<S>> {
  return parseStrictBody(schema, await c.req.text());
}
