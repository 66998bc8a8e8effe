import { jsonLogger } from '../../adapters/log/json-logger.ts';
import { type KvNamespaceLike, kvStateStore } from '../../adapters/store/kv-state-store.ts';
import { r2HistoryStore } from '../../adapters/store/r2-history-store.ts';
import { type R2BucketLike, r2NoteStore } from '../../adapters/store/r2-note-store.ts';
import { type AlarmStorage, alarmLifecycle } from '../shared/lifecycle.ts';
import { composeQuire, readConfig } from '../shared/quire.ts';

/** The bindings and variables wrangler.toml gives the Worker. */
export interface Env {
  NOTES: R2BucketLike;
  STATE: KvNamespaceLike;
  VAULT: { idFromName(name: string): unknown; get(id: unknown): { fetch(req: Request): Promise<Response> } };
  [variable: string]: unknown;
}

/** Where the history's objects live in the NOTES bucket (hidden from notes: a dot-folder). */
export const HISTORY_PREFIX = '.quire/history/';

/** The Worker's adapters (R2 notes, KV state), the core and the app; indexes the vault once. */
export async function start(env: Env, storage: AlarmStorage, first: URL) {
  const vars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  // HOST stands for "reachable by anyone": mode none is refused unless ALLOW_INSECURE_NO_AUTH.
  const defaults = { HOST: '0.0.0.0' };
  const config = readConfig(vars, { name: 'Workers', relayConnector: false, defaults, cwd: '/' });
  const logger = jsonLogger(config.logLevel, (line) => console.log(line.trimEnd()));
  const clock = { now: () => Date.now() };
  const quire = await composeQuire(config, {
    notes: r2NoteStore({ bucket: env.NOTES, clock }),
    state: kvStateStore({ kv: env.STATE }),
    // Versions and trash in the notes' bucket, under a dot-folder the note store never lists
    // (docs/reference/history.md "Runtimes"); HISTORY=false: deletes are for good.
    history: config.historyEnabled
      ? r2HistoryStore({ bucket: env.NOTES, prefix: HISTORY_PREFIX })
      : undefined,
    logger,
    clock,
    runtime: { name: 'workerd', version: globalThis.navigator?.userAgent ?? 'unknown' },
    socketAddress: (c) => c.req.header('cf-connecting-ip'),
    // workerd encodes a body itself when an answer names a Content-Encoding: answers leave uncompressed.
    compress: false,
  });
  quire.setupConfig.port = Number(first.port || (first.protocol === 'https:' ? 443 : 80));
  const started = Date.now();
  await quire.core.load();
  await quire.core.notes.saveCache();
  logger.info('index ready', { notes: quire.core.notes.status().notes, ms: Date.now() - started });
  const lifecycle = alarmLifecycle({
    notes: quire.core.notes,
    storage,
    logger,
    reconcileSeconds: config.reconcileSeconds,
    cacheSaveSeconds: config.indexCacheSaveSeconds,
    // The hourly setInterval of composeQuire dies with the Durable Object; the alarm prunes too.
    prune: () => quire.core.prune(),
  });
  return { app: quire.app, lifecycle };
}
