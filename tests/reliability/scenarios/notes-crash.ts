/**
 * Crash safety of notes: a note server child under a burst of concurrent creates, updates,
 * moves and deletes is killed with SIGKILL at a random moment, then started again on the same
 * folders. After every restart: each note holds exactly what some client wrote (the last
 * acknowledged version, or the version of the request in flight at the kill), never a torn or
 * empty file; no temporary file is left in the vault; and the restarted server's index and
 * link graph equal a fresh index of the files on disk. With history on (the default):
 * every text a client was told was written is found again after every restart, as a note's text
 * on disk, a version of some note (history follows moves) or a trash item: a kill at any point of
 * a write leaves the old note with its history, or the new note with the old one in history.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpClient, type Outcome } from './http.ts';
import { killDuringBurst, type ServerProc, startServerProc } from './procs.ts';
import { createRng, type Rng, subSeed } from './rng.ts';
import { compareIndex, tempFiles } from './verify.ts';

/** Options of `notesCrash`. */
export interface NotesCrashOptions {
  seed: number;
  killPoints: number;
  /** Concurrent writers (each owns its notes, so its writes to one path are sequential). */
  workers?: number;
  /** Notes per writer. */
  slots?: number;
  /** The kill comes this many ms after the burst starts, drawn in [min, max]. */
  killAfterMs?: [number, number];
  log?: (line: string) => void;
  /** Keep history and check it (default true). */
  history?: boolean;
}

/** What a run did and what it found wrong (empty `violations`: nothing). */
export interface NotesCrashResult {
  seed: number;
  killPoints: number;
  ops: number;
  acknowledged: number;
  /** Requests cut by a kill (their note may hold the old or the new version). */
  cut: number;
  notesChecked: number;
  /** Temporary files the kills left in the vault (each must be gone after the restart). */
  leftovers: number;
  /** Acknowledged texts looked for in the notes, versions and trash after the restarts. */
  historyChecked: number;
  violations: string[];
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A path's state: the text on disk, or null for no file. */
type State = string | null;

interface PathModel {
  acked: State;
  /** The state if the request in flight at the kill went through. */
  pending?: State;
}

const folderOf = (w: number, alt: boolean) => `w${w}/${alt ? 'b' : 'a'}`;
const pathOf = (w: number, slot: number, alt: boolean) => `${folderOf(w, alt)}/w${w}-n${slot}.md`;

/** Note text: unique per write, links to other writers' notes (wiki and relative), some size. */
function noteText(rng: Rng, w: number, slot: number, tag: string, workers: number, slots: number): string {
  const lines = [`# Note ${w}-${slot} ${tag}`, '', `#w${w} #round`, ''];
  for (let i = 0; i < rng.int(1, 4); i++) {
    const ow = rng.int(0, workers - 1);
    const os = rng.int(0, slots - 1);
    lines.push(
      rng.chance(0.7) ? `See [[w${ow}-n${os}]].` : `See [this](../../w${ow}/a/w${ow}-n${os}.md) too.`,
    );
  }
  const words = rng.int(20, rng.chance(0.2) ? 12_000 : 600);
  const body: string[] = [];
  for (let i = 0; i < words; i++) body.push(`word${rng.int(0, 999)}`);
  lines.push('', body.join(' '), '', `end ${tag}`, '');
  return lines.join('\n');
}

/** Runs `opts.killPoints` kill-and-restart rounds; see the file comment. */
export async function notesCrash(opts: NotesCrashOptions): Promise<NotesCrashResult> {
  const workers = opts.workers ?? 6;
  const slots = opts.slots ?? 5;
  const [killMin, killMax] = opts.killAfterMs ?? [20, 400];
  const log = opts.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'quire-crash-notes-'));
  const dataDir = join(root, 'data');
  const vault = join(dataDir, 'notes');
  const withHistory = opts.history ?? true;
  const env = {
    DATA_DIR: dataDir,
    PAIRING_MODE: 'open-port',
    RATE_LIMIT: '0',
    HISTORY: String(withHistory),
  };
  /** Checksum → a path it was written to, for every acknowledged text. */
  const ackedTexts = new Map<string, string>();
  const model = new Map<string, PathModel>();
  const where = new Map<string, boolean | null>(); // `${w}:${slot}` -> alt folder, or null when absent
  const result: NotesCrashResult = {
    seed: opts.seed,
    killPoints: opts.killPoints,
    ops: 0,
    acknowledged: 0,
    cut: 0,
    notesChecked: 0,
    leftovers: 0,
    historyChecked: 0,
    violations: [],
  };
  const client = httpClient({ keepAlive: true });
  let server: ServerProc | null = null;
  try {
    server = await startServerProc(env, 'server-0');
    const setup = await client.request('GET', `${server.url}/api/v1/system/setup`);
    const key = { 'x-service-key': setup.json.data.apiKey as string };
    const api = (method: string, path: string, body?: unknown) =>
      client.request(method, `${server!.url}/api/v1${path}`, { headers: key, body });

    for (let round = 0; round < opts.killPoints; round++) {
      const roundRng = createRng(subSeed(opts.seed, round));
      let killed = false;
      const writer = async (w: number) => {
        const rng = createRng(subSeed(opts.seed, round * 1000 + w + 1));
        let seq = 0;
        while (!killed) {
          const slot = rng.int(0, slots - 1);
          const at = where.get(`${w}:${slot}`) ?? null;
          const tag = `r${round}-w${w}-s${seq++}`;
          const text = noteText(rng, w, slot, tag, workers, slots);
          let out: Outcome;
          let paths: [string, State][];
          if (at === null) {
            const alt = rng.chance(0.5);
            paths = [[pathOf(w, slot, alt), text]];
            out = await send(() => api('POST', '/notes', { path: paths[0]![0], content: text }), paths);
            if (out.status === 201) where.set(`${w}:${slot}`, alt);
          } else {
            const p = pathOf(w, slot, at);
            const pick = rng.next();
            if (pick < 0.6) {
              paths = [[p, text]];
              out = await send(() => api('PUT', `/notes/${encodeURIComponent(p)}`, { content: text }), paths);
            } else if (pick < 0.8) {
              const to = pathOf(w, slot, !at);
              const moved = model.get(p)?.acked ?? null;
              paths = [
                [p, null],
                [to, moved],
              ];
              out = await send(
                () => api('POST', `/notes/${encodeURIComponent(p)}/move`, { path: to }),
                paths,
              );
              if (out.status === 200) where.set(`${w}:${slot}`, !at);
            } else {
              paths = [[p, null]];
              out = await send(() => api('DELETE', `/notes/${encodeURIComponent(p)}`), paths);
              if (out.status === 200) where.set(`${w}:${slot}`, null);
            }
          }
          if (out.status === 0) return; // cut by the kill
          if (out.status >= 300)
            result.violations.push(`round ${round}: ${tag} answered ${out.status} ${out.json?.error?.code}`);
        }
      };
      /** Marks `paths` pending, sends, and settles the model by the outcome. */
      const send = async (call: () => Promise<Outcome>, paths: [string, State][]) => {
        for (const [p, s] of paths) {
          const m = model.get(p) ?? { acked: null };
          m.pending = s;
          model.set(p, m);
        }
        result.ops++;
        const out = await call();
        for (const [p, s] of paths) {
          const m = model.get(p)!;
          if (out.status === 0) continue; // unknown: both states stay allowed
          if (out.status < 300) {
            m.acked = s;
            if (s !== null) ackedTexts.set(sha(s), p);
          }
          delete m.pending;
        }
        if (out.status === 0) result.cut++;
        else if (out.status < 300) result.acknowledged++;
        return out;
      };

      const killAfter = roundRng.int(killMin, killMax);
      const burst = Array.from({ length: workers }, (_, w) => writer(w));
      await killDuringBurst(
        server,
        killAfter,
        () => {
          killed = true;
        },
        burst,
      );
      log(
        `kill point ${round + 1}/${opts.killPoints}: SIGKILL after ${killAfter} ms, ${result.ops} ops so far`,
      );

      // Before the restart: whatever the crash left, temporary files included.
      const leftovers = await tempFiles(vault);
      result.leftovers += leftovers.length;
      server = await startServerProc(env, `server-${round + 1}`);
      const stillThere = (await tempFiles(vault)).filter((f) => leftovers.includes(f));
      for (const f of stillThere)
        result.violations.push(`round ${round}: temporary file left in the vault: ${f}`);
      for (const [p, m] of model) {
        const onDisk = await readFile(join(vault, p), 'utf8').catch(() => null);
        const allowed = [m.acked, ...('pending' in m ? [m.pending] : [])];
        if (!allowed.includes(onDisk)) {
          const what = onDisk === null ? 'missing' : onDisk === '' ? 'empty' : 'neither old nor new';
          result.violations.push(`round ${round}: ${p} is ${what} (${onDisk?.length ?? 0} bytes)`);
        }
        m.acked = onDisk;
        delete m.pending;
      }
      for (let w = 0; w < workers; w++)
        for (let slot = 0; slot < slots; slot++) {
          const k = `${w}:${slot}`;
          const a = model.get(pathOf(w, slot, false))?.acked ?? null;
          const b = model.get(pathOf(w, slot, true))?.acked ?? null;
          if (a !== null && b !== null)
            result.violations.push(
              `round ${round}: a cut move left both ${pathOf(w, slot, false)} and its copy`,
            );
          where.set(k, b !== null ? true : a !== null ? false : null);
        }
      if (withHistory) {
        // Every acknowledged text: on disk, a version of some note, or in the trash.
        const found = new Set<string>();
        for (const [p, m] of model) {
          if (m.acked !== null) found.add(sha(m.acked));
          const v = await api('GET', `/notes/${encodeURIComponent(p)}/versions`);
          if (v.status !== 200)
            result.violations.push(`round ${round}: versions of ${p} answered ${v.status}`);
          else for (const x of v.json.data as { checksum: string }[]) found.add(x.checksum);
        }
        const trash = await api('GET', '/trash');
        if (trash.status !== 200) result.violations.push(`round ${round}: trash answered ${trash.status}`);
        else for (const x of trash.json.data as { checksum: string }[]) found.add(x.checksum);
        for (const [sum, p] of ackedTexts) {
          result.historyChecked++;
          if (!found.has(sum))
            result.violations.push(
              `round ${round}: an acknowledged text of ${p} is lost: not on disk, in no version, not in the trash`,
            );
        }
      }
      const list = await api('GET', '/notes');
      if (list.status !== 200) result.violations.push(`round ${round}: list answered ${list.status}`);
      else {
        result.notesChecked += list.json.data.length;
        for (const p of await compareIndex(vault, list.json.data))
          result.violations.push(`round ${round}: ${p}`);
      }
    }
    return result;
  } finally {
    client.close();
    await server?.kill();
    await rm(root, { recursive: true, force: true });
  }
}
