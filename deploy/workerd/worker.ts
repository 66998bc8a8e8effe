/**
 * The Cloudflare Worker composition root (workerd): notes in R2, state in KV, and the app in one
 * Durable Object so that a single in-memory index serves every request. `wrangler.toml` beside
 * this file names the bindings; README "Running on Bun, Deno and Workers" tells how to deploy.
 */
import { jsonLogger } from '../../adapters/node/logger.ts';
import { type KvNamespaceLike, kvStateStore } from '../../adapters/store/kv-state-store.ts';
import { type R2BucketLike, r2NoteStore } from '../../adapters/store/r2-note-store.ts';
import { AuthStateError } from '../../core/auth/state.ts';
import { createCore } from '../../core/create-core.ts';
import pkg from '../../package.json' with { type: 'json' };
import { composeApp } from '../shared/compose.ts';
import { ConfigError, loadConfig } from '../shared/config/server.ts';

/** The bindings and variables wrangler.toml gives the Worker. */
export interface Env {
  NOTES: R2BucketLike;
  STATE: KvNamespaceLike;
  VAULT: { idFromName(name: string): unknown; get(id: unknown): { fetch(req: Request): Promise<Response> } };
  [variable: string]: unknown;
}
type DurableState = { storage: { getAlarm(): Promise<number | null>; setAlarm(at: number): Promise<void> } };

/** Every request goes to the one vault object. */
export default {
  fetch(req: Request, env: Env): Promise<Response> {
    return env.VAULT.get(env.VAULT.idFromName('vault')).fetch(req);
  },
};

/** Holds the core and the app for as long as the object stays in memory. */
export class QuireVault {
  #quire?: ReturnType<typeof start>;
  constructor(
    private readonly state: DurableState,
    private readonly env: Env,
  ) {}

  async fetch(req: Request): Promise<Response> {
    this.#quire ??= start(this.env, new URL(req.url));
    let quire: Awaited<ReturnType<typeof start>>;
    try {
      quire = await this.#quire;
    } catch (err) {
      // A bad variable or damaged credentials: every request says what, until an operator fixes it.
      // Anything else (a storage hiccup) is retried by the next request.
      const operator = err instanceof ConfigError || err instanceof AuthStateError;
      if (!operator) this.#quire = undefined;
      console.error(`quire: ${operator ? (err as Error).message : `start failed: ${String(err)}`}`);
      const error = operator
        ? { code: 'NOT_READY', message: `quire: ${(err as Error).message}` }
        : { code: 'INTERNAL_ERROR', message: 'The server could not start; see the Worker logs.' };
      return Response.json({ success: false, error }, { status: operator ? 503 : 500 });
    }
    const res = await quire.app.fetch(req);
    // The index cache is saved by an alarm shortly after a write: the object may be evicted any time.
    if (req.method !== 'GET' && req.method !== 'HEAD' && (await this.state.storage.getAlarm()) === null) {
      await this.state.storage.setAlarm(Date.now() + quire.saveDelayMs);
    }
    return res;
  }

  async alarm(): Promise<void> {
    await (await this.#quire)?.core.flush();
  }
}

/** Builds the stores, the core and the app; indexes the vault (from the index cache when it can). */
async function start(env: Env, first: URL) {
  const vars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  // HOST stands for "reachable by anyone": mode none is refused unless ALLOW_INSECURE_NO_AUTH.
  const config = loadConfig({ HOST: '0.0.0.0', PAIRING_MODE: 'open-port', ...vars }, '/');
  if (config.pairingMode !== 'open-port') {
    throw new ConfigError(
      'PAIRING_MODE must be open-port on Workers: the relay connector runs on Node only.',
    );
  }
  const saveDelayMs = config.indexCacheSaveSeconds * 1000;
  const logger = jsonLogger(config.logLevel, (line) => console.log(line.trimEnd()));
  const clock = { now: () => Date.now() };
  const state = kvStateStore({ kv: env.STATE });
  const core = createCore({ store: r2NoteStore({ bucket: env.NOTES, clock }), state, clock, logger });
  const { app, setupConfig } = await composeApp({
    config,
    notes: core.notes,
    state,
    clock,
    logger,
    version: pkg.version,
    runtime: { name: 'workerd', version: globalThis.navigator?.userAgent ?? 'unknown' },
    socketAddress: (c) => c.req.header('cf-connecting-ip'),
    // workerd encodes a body itself when an answer names a Content-Encoding (and Cloudflare's edge
    // compresses per Accept-Encoding): answers leave the app uncompressed.
    compress: false,
  });
  setupConfig.port = Number(first.port || (first.protocol === 'https:' ? 443 : 80));
  const started = Date.now();
  await core.load();
  await core.notes.saveCache();
  logger.info('index ready', { notes: core.notes.status().notes, ms: Date.now() - started });
  return { app, core, saveDelayMs };
}
