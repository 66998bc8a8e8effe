import { resolve } from 'node:path';
import type { LogLevel } from '../../adapters/node/logger.ts';

/** The validated server environment (decisions.md section 1). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  vaultDir: string;
  logLevel: LogLevel;
  maxBodyBytes: number;
}

/** A bad environment value; the message is one line naming the variable. */
export class ConfigError extends Error {}

const int = (env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}.`);
  return n;
};

/** Reads and validates the environment; throws ConfigError on the first bad value. */
export function loadConfig(env: NodeJS.ProcessEnv, cwd = process.cwd()): ServerConfig {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = (env.HOST ?? '127.0.0.1').trim();
  if (!host || /\s|\//.test(host))
    throw new ConfigError(`HOST must be a host name or address, got "${env.HOST}".`);
  const dataDir = resolve(cwd, env.DATA_DIR || './data');
  const vaultDir = resolve(cwd, env.VAULT_DIR || `${dataDir}/notes`);
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of debug, info, warn, error, silent; got "${env.LOG_LEVEL}".`,
    );
  }
  const maxBodyBytes = int(env, 'MAX_BODY_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  return { port, host, dataDir, vaultDir, logLevel: logLevel as LogLevel, maxBodyBytes };
}
