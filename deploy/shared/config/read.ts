/**
 * How a variable of the table is read: one valibot schema per kind (string → number, boolean,
 * choice, URL, list, with the table's bounds and default), one ConfigError naming the variable, and
 * `readVariables`, the one reader the server, the relay and the CLI use. Runtime-neutral: no
 * `node:*` import, so Node, Bun, Deno and the Worker (its bindings) read a plain record the same way.
 */
import * as v from 'valibot';

/** A bad environment value; the message is one line naming the variable (a secret's value never). */
export class ConfigError extends Error {}

/** The words a boolean variable accepts (docs/reference/configuration.md says the same). */
export const TRUE_WORDS = ['1', 'true', 'yes', 'on'] as const;
export const FALSE_WORDS = ['0', 'false', 'no', 'off'] as const;
const WORDS: readonly string[] = [...TRUE_WORDS, ...FALSE_WORDS];

export type Env = Record<string, string | undefined>;

/** LOG_LEVEL's values. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Socket time-outs against slow clients, in ms (the server's and the relay's): defined once, in core. */
export type { HttpTimeouts } from '../../../core/security/types.ts';

/** How a variable is read and what it accepts (its entry in the table, docs aside). */
export type VariableSpec =
  | { kind: 'int'; def: number; min: number; max: number; shown?: string }
  | { kind: 'bool'; def: boolean; shown?: string }
  | { kind: 'enum'; values: readonly string[]; def: string; shown?: string }
  /** `prefixes`, `minLength` (with a `hint` how to make one): checked without echoing the value. */
  | { kind: 'secret'; prefixes?: readonly string[]; minLength?: number; hint?: string; shown?: string }
  | { kind: 'url' | 'text' | 'path' | 'host' | 'origins' | 'list'; def?: string; shown?: string };
export type Kind = VariableSpec['kind'];

/** The value a variable of `spec` reads as (undefined: unset, and no default in the table). */
export type ValueOf<S> = S extends { kind: 'int' }
  ? number
  : S extends { kind: 'bool' }
    ? boolean
    : S extends { kind: 'enum'; values: readonly (infer E)[] }
      ? E
      : S extends { kind: 'origins' | 'list' }
        ? string[] | undefined
        : S extends { def: string }
          ? string
          : string | undefined;

/** A non-empty trimmed string in, the kind's value out. */
type Step = v.GenericSchema<string, unknown>;

/** An absolute http(s) URL without a trailing slash, query or fragment. */
function checkUrl(name: string, raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL such as https://notes.example.com, got "${raw}".`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(`${name} must use http or https.`);
  if (u.search || u.hash || u.username)
    throw new ConfigError(`${name} must not carry a query, fragment or user.`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** A step parsing with `fn`; the message of the ConfigError it throws becomes the schema's issue. */
const parse = (fn: (s: string) => unknown): Step =>
  v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        return fn(dataset.value);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        addIssue({ message: e.message });
        return NEVER;
      }
    }),
  );
const split = (s: string) => s.split(',').flatMap((x) => x.trim() || []);
const lower = (s: string) => s.toLowerCase();

/** Each kind: its schema for one variable, and what it accepts in words (docs/reference/configuration.md). */
export const KINDS: {
  [K in Kind]: {
    step(name: string, spec: Extract<VariableSpec, { kind: K }>): Step;
    accepts(spec: Extract<VariableSpec, { kind: K }>): string;
  };
} = {
  int: {
    step: (name, { min, max }) =>
      v.pipe(
        v.string(),
        v.regex(/^\d+$/, (i) => `${name} must be a whole number, got "${i.input}".`),
        v.transform(Number),
        v.check(
          (n) => n >= min && n <= max,
          (i) => `${name} must be between ${min} and ${max}, got ${i.input}.`,
        ),
      ),
    accepts: ({ min, max }) => `whole number ${min}–${max}`,
  },
  bool: {
    step: (name) =>
      v.pipe(
        v.string(),
        v.check(
          (s) => WORDS.includes(lower(s)),
          (i) => `${name} must be true or false (1/0), got "${i.input}".`,
        ),
        v.transform((s) => (TRUE_WORDS as readonly string[]).includes(lower(s))),
      ),
    accepts: () => '`1`/`0` (`true`, `yes`, `on` / `false`, `no`, `off`)',
  },
  enum: {
    step: (name, { values }) =>
      v.pipe(
        v.string(),
        v.check(
          (s) => values.includes(lower(s)),
          (i) => `${name} must be one of ${values.join(', ')}; got "${i.input}".`,
        ),
        v.transform(lower),
      ),
    accepts: ({ values }) => values.map((x) => `\`${x}\``).join(', '),
  },
  url: { step: (name) => parse((s) => checkUrl(name, s)), accepts: () => 'http(s) URL, no query' },
  origins: {
    step: (name) =>
      parse((s) =>
        split(s).map((o, i) => {
          if (o === '*') throw new ConfigError(`${name} must list exact origins; "*" is not allowed.`);
          return new URL(checkUrl(`${name}[${i}]`, o)).origin;
        }),
      ),
    accepts: () => 'comma-separated http(s) origins',
  },
  /** Checked without echoing the value. */
  secret: {
    step: (name, { prefixes, minLength = 0, hint }) =>
      v.pipe(
        v.string(),
        v.check(
          (s) => !prefixes || prefixes.some((p) => s.startsWith(p)),
          `${name} must start with ${prefixes?.join(' or ')}.`,
        ),
        v.minLength(
          minLength,
          `${name} must be at least ${minLength} characters${hint ? ` (${hint})` : ''}.`,
        ),
      ),
    accepts: ({ minLength }) =>
      `text${minLength ? ` of ${minLength}+ characters` : ''}, secret (never logged)`,
  },
  host: {
    step: (name) =>
      v.pipe(
        v.string(),
        v.check(
          (s) => !/\s|\//.test(s),
          (i) => `${name} must be a host name or address, got "${i.input}".`,
        ),
      ),
    accepts: () => 'host name or address',
  },
  list: { step: () => v.pipe(v.string(), v.transform(split)), accepts: () => 'comma-separated list' },
  path: { step: () => v.string(), accepts: () => 'path (relative to the working folder)' },
  text: { step: () => v.string(), accepts: () => 'text' },
};

/** The table's default as the text a variable would carry (it parses through the same schema). */
export function defaultText(spec: VariableSpec): string | undefined {
  if (!('def' in spec) || spec.def === undefined) return undefined;
  return typeof spec.def === 'boolean' ? (spec.def ? 'true' : 'false') : String(spec.def);
}

/**
 * The schema of one variable: unset, empty or blank means the table's default (which then parses
 * through the kind's schema too) or undefined; anything else must parse as its kind.
 */
export function schemaOf(name: string, spec: VariableSpec): v.GenericSchema<unknown, unknown> {
  const step = (KINDS[spec.kind].step as (n: string, s: VariableSpec) => Step)(name, spec);
  return v.pipe(
    v.optional(v.string(`${name} must be text.`)),
    v.transform((s) => s?.trim() || undefined),
    v.optional(step, defaultText(spec)),
  );
}

const schemas = new WeakMap<object, v.GenericSchema<unknown, unknown>>();

/**
 * The values of `names` (default: every variable of `table`) from `env`; ConfigError on the first
 * bad one, in table order. An unset variable reads as the table's default without building its
 * schema (most are unset at start); tests/deploy/config.test.ts checks that every default is what
 * its schema makes of it.
 */
export function readVariables<
  T extends Record<string, VariableSpec>,
  N extends keyof T & string = keyof T & string,
>(table: T, env: Env, names: readonly N[] = Object.keys(table) as N[]): { [K in N]: ValueOf<T[K]> } {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const spec = table[name]!;
    const raw = env[name];
    if (raw === undefined || (typeof raw === 'string' && !raw.trim())) {
      out[name] = 'def' in spec ? spec.def : undefined;
      continue;
    }
    let schema = schemas.get(spec);
    if (!schema) {
      schema = schemaOf(name, spec);
      schemas.set(spec, schema);
    }
    const r = v.safeParse(schema, raw);
    if (!r.success) throw new ConfigError(r.issues[0].message);
    out[name] = r.output;
  }
  return out as { [K in N]: ValueOf<T[K]> };
}

/** The names in `table` that start with `prefix` (AGENT_, EMBEDDINGS_). */
export const withPrefix = <T extends object, P extends string>(table: T, prefix: P) =>
  Object.keys(table).filter((n) => n.startsWith(prefix)) as Extract<keyof T, `${P}${string}`>[];

/**
 * `path` resolved against the folder `cwd` (POSIX, like `path.resolve` with two arguments) without
 * `node:path`, so the Worker can read the same configuration.
 */
export function resolvePath(cwd: string, path: string): string {
  const parts: string[] = [];
  for (const seg of `${path.startsWith('/') ? '' : cwd}/${path}`.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}

/** The working folder where the runtime has one (Node, Bun, Deno's process shim); `/` elsewhere. */
export function workingDir(): string {
  const proc = (globalThis as { process?: { cwd?: () => string } }).process;
  return proc?.cwd?.() ?? '/';
}
