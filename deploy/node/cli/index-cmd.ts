import { analyzePool } from '../../../adapters/node/analyze-pool.ts';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { fsStateStore } from '../../../adapters/store/fs-state-store.ts';
import { analyzeNote } from '../../../core/notes/markdown/analyzer.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { SNAPSHOT_KEY } from '../../../core/notes/snapshot-cache.ts';
import type { StateStore } from '../../../core/ports.ts';
import { ConfigError, loadConfig } from '../../shared/config/server.ts';
import { CliProblem, type Command, EXIT, parse } from './common.ts';
import { duration, progressBar } from './progress.ts';

const JOURNAL_KEY = 'index-journal.log';

/** `quire index`: parses the whole vault again and writes a fresh index cache. */
export const index: Command = {
  help: `Usage: quire index [options]

Parses every note of VAULT_DIR again, ignoring the cache, and writes DATA_DIR/index-snapshot.bin
(the index cache), so the next start does not re-parse anything. Run it with the server stopped (a running server
keeps its own index and saves it over this one). Progress goes to stderr: a bar on a terminal,
a line a second otherwise.

Options:
  --data-dir <dir>    DATA_DIR (default ./data)
  --vault-dir <dir>   VAULT_DIR (default DATA_DIR/notes)
  --quiet             No progress, only the summary
  -h, --help          This help

Exit 0 when the cache is written, 1 on a bad configuration or a failure, 2 on a usage error.`,
  async run(args, io) {
    const { values } = parse(args, {
      'data-dir': { type: 'string' },
      'vault-dir': { type: 'string' },
      quiet: { type: 'boolean' },
    });
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const env = { ...io.env };
    if (values['data-dir'] !== undefined) env.DATA_DIR = values['data-dir'];
    if (values['vault-dir'] !== undefined) env.VAULT_DIR = values['vault-dir'];
    let config: ReturnType<typeof loadConfig>;
    try {
      config = loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) throw new CliProblem(err.message);
      throw err;
    }
    const state = fsStateStore({ dir: config.dataDir });
    // The cache is read by nobody here: every note is parsed again.
    const fresh: StateStore = {
      get: (key) => state.get(key),
      put: (key, value) => state.put(key, value),
      putPieces: (key, pieces) => state.putPieces!(key, pieces),
      append: (key, value) => state.append!(key, value),
      remove: (key) => state.remove(key),
      putBytes: (key, pieces) => state.putBytes!(key, pieces),
      getRange: (key, offset, length) => state.getRange!(key, offset, length),
      byteSize: (key) => (key === SNAPSHOT_KEY ? Promise.resolve(null) : state.byteSize!(key)),
    };
    const pool = analyzePool({ fallback: async (texts) => texts.map((t) => analyzeNote(t)) });
    const notes = createNoteService({
      store: fsNoteStore({ dir: config.vaultDir }),
      state: fresh,
      clock: { now: Date.now },
      analyze: pool.analyze,
    });
    const bar = progressBar(io.err, io.tty);
    const started = performance.now();
    try {
      await notes.load(values.quiet ? undefined : (done, total) => bar.update(done, total));
      if (!values.quiet) bar.finish();
      // Nothing to save (an empty vault): no stale cache stays behind either.
      if (!(await notes.saveCache())) {
        await state.remove(SNAPSHOT_KEY);
        await state.remove(JOURNAL_KEY);
      }
    } finally {
      await pool.close();
    }
    const s = notes.status();
    const seconds = (performance.now() - started) / 1000;
    io.out(
      `Indexed ${s.notes} notes in ${duration(seconds)} (${Math.round(s.notes / Math.max(seconds, 0.001))} notes/s); cache written to ${config.dataDir}/${SNAPSHOT_KEY}\n`,
    );
    return EXIT.ok;
  },
};
