/** The checks of `quire doctor`: each says ok, warn or fail, and what to do about it. */
import { constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { AuthStateError, parseAuthState } from '../../../core/auth/state.ts';
import { parseJournal } from '../../../core/history/codec.ts';
import { loadRelayConfig, RelayConfigError } from '../../shared/config/relay.ts';
import type { ServerConfig } from '../../shared/config/server.ts';
import { CLIENT_DIST_DIR } from '../../shared/fs-server.ts';

/** The outcome of one check. */
export interface Check {
  status: 'ok' | 'warn' | 'fail';
  name: string;
  detail: string;
  /** What to do, for warn and fail. */
  fix?: string;
}

const can = (path: string, mode: number) =>
  access(path, mode).then(
    () => true,
    () => false,
  );

/** The closest folder of `path` that exists. */
function existingParent(path: string): string {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/** A folder the server must read and write (DATA_DIR, VAULT_DIR). */
export async function checkDir(name: string, variable: string, dir: string): Promise<Check> {
  if (!existsSync(dir)) {
    const parent = existingParent(dir);
    return (await can(parent, constants.W_OK | constants.X_OK))
      ? { status: 'ok', name, detail: `${dir} does not exist yet; the first start creates it` }
      : {
          status: 'fail',
          name,
          detail: `${dir} does not exist and ${parent} is not writable`,
          fix: `create ${dir} for the user running quire, or set ${variable}`,
        };
  }
  if (!statSync(dir).isDirectory())
    return { status: 'fail', name, detail: `${dir} is not a folder`, fix: `point ${variable} at a folder` };
  if (!(await can(dir, constants.R_OK | constants.W_OK | constants.X_OK)))
    return {
      status: 'fail',
      name,
      detail: `${dir} is not readable and writable by this user`,
      fix: `chown or chmod ${dir}, or run quire as its owner`,
    };
  return { status: 'ok', name, detail: `${dir} is readable and writable` };
}

/** Server state files: private (0600), and credentials.json intact. */
export function checkState(dataDir: string): Check[] {
  const out: Check[] = [];
  for (const file of ['credentials.json', 'channels.json', 'plugins.json', 'oauth.json']) {
    const path = join(dataDir, file);
    if (!existsSync(path)) continue;
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077)
      out.push({
        status: 'fail',
        name: file,
        detail: `${path} is readable by others (mode ${mode.toString(8)})`,
        fix: `chmod 600 ${path}`,
      });
    if (file === 'credentials.json') {
      try {
        parseAuthState(readFileSync(path, 'utf8'), path);
        if (!(mode & 0o077)) out.push({ status: 'ok', name: file, detail: `${path} is intact and private` });
      } catch (err) {
        if (!(err instanceof AuthStateError)) throw err;
        out.push({
          status: 'fail',
          name: file,
          detail: err.message,
          fix: 'restore it from a backup, or delete it to start over (every key changes)',
        });
      }
    }
  }
  if (out.length === 0)
    out.push({ status: 'ok', name: 'state', detail: 'no server state yet (first start creates it)' });
  return out;
}

/** The built client (npm start builds it; quire serve does not). */
export function checkClient(): Check {
  const missing = ['index.html', 'api-reference.js'].filter((f) => !existsSync(join(CLIENT_DIST_DIR, f)));
  return missing.length === 0
    ? { status: 'ok', name: 'client', detail: 'the web client and the API reference are built' }
    : {
        status: 'warn',
        name: 'client',
        detail: `not built (${missing.join(', ')} missing): /link, /workspace and /api/v1/docs answer 503`,
        fix: 'npm run build:client (npm start does it for you)',
      };
}

/** What answers at `url`: a Quire server or relay (its health), something else, or nothing. */
async function probe(
  url: string,
): Promise<{ kind: 'free' } | { kind: 'quire'; what: string } | { kind: 'other'; status: number }> {
  try {
    const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json().catch(() => null)) as {
      success?: boolean;
      data?: { service?: string; version?: string; status?: string };
    } | null;
    if (body?.success === true && body.data?.version)
      return {
        kind: 'quire',
        what: `${body.data.service ?? 'quire server'} ${body.data.version} (${body.data.status})`,
      };
    return { kind: 'other', status: res.status };
  } catch {
    return { kind: 'free' };
  }
}

/** A listening address: free, or already ours (a running Quire), or taken by something else. */
export async function checkPort(name: string, variable: string, host: string, port: number): Promise<Check> {
  if (port === 0) return { status: 'ok', name, detail: `${variable}=0: a free port is picked at start` };
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const found = await probe(`http://${shown}:${port}`);
  if (found.kind === 'free') return { status: 'ok', name, detail: `${shown}:${port} is free` };
  if (found.kind === 'quire')
    return { status: 'ok', name, detail: `${found.what} already answers at ${shown}:${port}` };
  return {
    status: 'fail',
    name,
    detail: `something else answers at ${shown}:${port} (status ${found.status})`,
    fix: `stop it, or set ${variable} to another port`,
  };
}

/** The relay the server pairs through. */
export async function checkRelay(config: ServerConfig): Promise<Check> {
  if (config.pairingMode !== 'relay')
    return { status: 'ok', name: 'relay', detail: 'PAIRING_MODE=open-port: no relay' };
  if (!config.relayUrl) return checkPort('relay', 'RELAY_PORT', config.relayHost, config.relayPort);
  const found = await probe(config.relayUrl);
  if (found.kind === 'quire')
    return { status: 'ok', name: 'relay', detail: `${found.what} answers at ${config.relayUrl}` };
  return {
    status: 'fail',
    name: 'relay',
    detail:
      found.kind === 'free'
        ? `cannot reach the relay at ${config.relayUrl}`
        : `${config.relayUrl} answers ${found.status}, not like a Quire relay`,
    fix: 'start it (quire relay), or fix RELAY_URL (unset it to run the relay inside the server)',
  };
}

/** The relay's own variables, and Redis when REDIS_URL is set. */
export async function checkRelayConfigAndRedis(env: NodeJS.ProcessEnv): Promise<Check[]> {
  let redisUrl: string | null;
  const found: Check[] = [];
  try {
    redisUrl = loadRelayConfig(env).redisUrl;
  } catch (err) {
    if (!(err instanceof RelayConfigError)) throw err;
    found.push({
      status: 'fail',
      name: 'relay config',
      detail: err.message,
      fix: 'fix the variable named (docs/reference/configuration.md)',
    });
    // A missing RELAY_QUEUE_KEY should not hide whether Redis itself answers.
    try {
      redisUrl = loadRelayConfig({ ...env, RELAY_QUEUE_PLAIN: '1' }).redisUrl;
    } catch {
      return found;
    }
  }
  if (!redisUrl) return found;
  return [...found, await checkRedis(redisUrl)];
}

async function checkRedis(redisUrl: string): Promise<Check> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return { status: 'ok', name: 'redis', detail: `REDIS_URL answers PING` };
  } catch (err) {
    return {
      status: 'fail',
      name: 'redis',
      detail: `REDIS_URL does not answer (${(err as Error).message})`,
      fix: 'start Redis, or fix REDIS_URL (unset: in-memory queue, one relay instance)',
    };
  } finally {
    redis.disconnect();
  }
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 2 : 0)} MiB`;

/**
 * The history and the trash in `DATA_DIR/history`: bytes held, versions and trash
 * items, read from the store's files (the server may be running: nothing is written). A store
 * past its byte budget is a warning (the hourly prune brings it back).
 */
export function checkHistory(config: Pick<ServerConfig, 'dataDir' | 'historyEnabled' | 'history'>): Check {
  const name = 'history';
  if (!config.historyEnabled)
    return { status: 'ok', name, detail: 'off (HISTORY=false): deletes are for good, no versions kept' };
  const dir = join(config.dataDir, 'history');
  if (!existsSync(dir))
    return { status: 'ok', name, detail: `${dir} does not exist yet (first write creates it)` };
  let bytes = 0;
  let versions = 0;
  const trash = new Set<string>();
  try {
    for (const f of readdirSync(dir)) bytes += statSync(join(dir, f)).size;
    const journal = join(dir, 'journal');
    if (existsSync(journal)) {
      for (const r of parseJournal(readFileSync(journal, 'utf8'))) {
        if (r.t === 'v') versions++;
        else if (r.t === 'x') trash.add(r.id);
        else if (r.t === 'u') trash.delete(r.id);
      }
    }
  } catch (err) {
    return {
      status: 'fail',
      name,
      detail: `${dir} cannot be read: ${(err as Error).message}`,
      fix: `chown ${dir} to the user running quire`,
    };
  }
  const detail = `${mib(bytes)} in ${dir}: ${versions} version${versions === 1 ? '' : 's'}, ${trash.size} item${trash.size === 1 ? '' : 's'} in the trash (budget ${mib(config.history.maxBytes)})`;
  return bytes > config.history.maxBytes * 1.1
    ? {
        status: 'warn',
        name,
        detail: `${detail}: over budget`,
        fix: 'the server prunes hourly; lower HISTORY_MAX_AGE_DAYS or raise HISTORY_MAX_BYTES',
      }
    : { status: 'ok', name, detail };
}
