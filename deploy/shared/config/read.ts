/**
 * Small readers for environment variables, shared by the note server and the relay (one set of
 * accepted words, one error type); each throws ConfigError naming the variable. Runtime-neutral:
 * no `node:*` import, so Node, Bun, Deno and the Worker read their configuration the same way.
 */

/** A bad environment value; the message is one line naming the variable. */
export class ConfigError extends Error {}

/** The words a boolean variable accepts (docs/configuration.md says the same). */
export const TRUE_WORDS = ['1', 'true', 'yes', 'on'] as const;
export const FALSE_WORDS = ['0', 'false', 'no', 'off'] as const;

export type Env = Record<string, string | undefined>;

export function str(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}.`);
  return n;
}

export function bool(env: Env, name: string, def = false): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return def;
  if ((TRUE_WORDS as readonly string[]).includes(raw)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false (1/0), got "${env[name]}".`);
}

export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], def: T): T {
  const raw = str(env, name)?.toLowerCase() ?? def;
  if (!values.includes(raw as T))
    throw new ConfigError(`${name} must be one of ${values.join(', ')}; got "${env[name]}".`);
  return raw as T;
}

/** An absolute http(s) URL without a trailing slash, query or fragment. */
export function url(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
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

/** True for addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

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

/** Socket time-outs against slow clients, in ms (the server's and the relay's). */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/** LOG_LEVEL's values. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
