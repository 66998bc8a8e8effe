/**
 * The server's state files (DATA_DIR/<key>, written through the StateStore port) and what
 * "intact" means for each. `checkStateFiles` is generic over a list of keys, so every state
 * file a feature adds (channels.json, plugins.json, ...) joins the kill test with one entry.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX } from '../../../adapters/store/fs-safe.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { AUTH_STATE_KEY } from '../../../core/auth/service.ts';
import { parseAuthState } from '../../../core/auth/state.ts';
import { CHANNELS_KEY, channelStore } from '../../../core/channels/store.ts';
import { parseIndexCache } from '../../../core/notes/note-index.ts';
import { type BinaryStateStore, readBinaryCache, SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import { STATE_KEY as PLUGINS_KEY, parseState as parsePluginState } from '../../../core/plugins/state.ts';

/** One state file: its key and a parser that throws when the text (or bytes) is not a usable state. */
export interface StateFileSpec {
  key: string;
  parse(text: string, bytes: Uint8Array): void | Promise<void>;
}

/** Reads `bytes` as the binary index snapshot the way the server does (throws when damaged), search lists too. */
async function parseSnapshot(bytes: Uint8Array): Promise<void> {
  const state = memoryStateStore();
  await state.putBytes!(
    SNAPSHOT_KEY,
    (async function* () {
      yield bytes;
    })(),
  );
  const cache = await readBinaryCache(state as BinaryStateStore, bytes.length, 'index-journal.log');
  await cache.search.terms();
}

/** Reads `text` as channels.json the way the server does at start (throws when damaged). */
async function parseChannels(text: string): Promise<void> {
  const state = memoryStateStore();
  await state.put(CHANNELS_KEY, text);
  await channelStore(state).load();
}

/** The state files: credentials and keys, the index cache, channels and plugins. */
export const STATE_FILES: StateFileSpec[] = [
  { key: AUTH_STATE_KEY, parse: (text) => void parseAuthState(text, AUTH_STATE_KEY) },
  {
    key: 'index-cache.json',
    parse: (text) => {
      if (!parseIndexCache(text)) throw new Error('index-cache.json does not parse as an index cache');
    },
  },
  { key: SNAPSHOT_KEY, parse: (_text, bytes) => parseSnapshot(bytes) },
  {
    // Appended to: a kill may tear its last line (the loader drops it), never its header.
    key: 'index-journal.log',
    parse: (text) => {
      const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { v?: unknown; gen?: unknown };
      if (typeof header.v !== 'number' || typeof header.gen !== 'number')
        throw new Error('index-journal.log does not start with its header line');
    },
  },
  { key: CHANNELS_KEY, parse: parseChannels },
  { key: PLUGINS_KEY, parse: (text) => void parsePluginState(text) },
];

/** The temporary files in `dataDir` now (call it after a kill, before the restart). */
export async function stateTempFiles(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir)).filter((name) => name.startsWith(TEMP_PREFIX));
}

/**
 * Checks `dataDir` against `specs` after a restart: a file that existed before (`seen`) must
 * still exist, every present one must parse, and none of the temporary files the crash left
 * (`leftovers`, from `stateTempFiles`) may remain. Adds newly seen keys to `seen`. Returns one
 * line per problem.
 */
export async function checkStateFiles(
  dataDir: string,
  specs: StateFileSpec[],
  seen: Set<string>,
  leftovers: string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const spec of specs) {
    const bytes = await readFile(join(dataDir, spec.key)).catch(() => null);
    const text = bytes === null ? null : bytes.toString('utf8');
    if (text === null || bytes === null) {
      if (seen.has(spec.key)) problems.push(`${spec.key} is missing`);
      continue;
    }
    seen.add(spec.key);
    try {
      await spec.parse(text, new Uint8Array(bytes));
    } catch (err) {
      problems.push(`${spec.key} is damaged: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const now = new Set(await stateTempFiles(dataDir));
  for (const name of leftovers) if (now.has(name)) problems.push(`temporary file left in DATA_DIR: ${name}`);
  return problems;
}
