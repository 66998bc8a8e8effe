/** Small readers for environment variables; each throws ConfigError naming the variable. */

/** A bad environment value; the message is one line naming the variable. */
export class ConfigError extends Error {}

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
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
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
