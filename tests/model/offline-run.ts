/**
 * The offline property test: simulated workspaces (the client's own offline store and sync,
 * client-link/src/flow/offline-sync.ts, over its own API calls) write with bases, go offline and
 * keep drafts (edits of several notes, new notes), reconnect and send them; the files change on
 * disk; the server (a real `quire` process) restarts, cleanly or by SIGKILL with a write in
 * flight. At every quiescence: every client's view equals the file on disk, and every word an
 * acknowledged write inserted is in its note or in a conflict copy the note links, unless an edit
 * made later by someone who saw it removed it. A failure is shrunk (delta debugging, each try a
 * fresh server) and printed with its seed.
 */
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiFailure, isUnreachable } from '../../client-link/src/flow/api.ts';
import { conflictsIn } from '../../client-link/src/flow/conflict.ts';
import { type OfflineStore, offlineStore } from '../../client-link/src/flow/offline-store.ts';
import {
  createUnderFreeName,
  type SyncOutcome,
  syncDrafts,
} from '../../client-link/src/flow/offline-sync.ts';
import type { Profile } from '../../client-link/src/flow/profiles.ts';
import { type WorkspaceApi, workspaceApi } from '../../client-link/src/flow/workspace-api.ts';
import { memoryStorage } from '../client-link/storage.ts';
import type { Proc } from '../reliability/scenarios/procs.ts';
import { createRng } from '../reliability/scenarios/rng.ts';
import { ddmin } from './ddmin.ts';
import { spawnModelServer } from './harness.ts';
import {
  applyEdit,
  CLIENTS,
  describeOp,
  type Edit,
  type GenState,
  OfflineGenerator,
  type OfflineOp,
  SEED_NOTES,
  seedText,
} from './offline-ops.ts';

export class Violation extends Error {}

/** How long the server may take to show a change made on disk (its watcher's delay is ≤ 2 s). */
const DISK_SEEN_MS = 20_000;

interface SimClient {
  id: number;
  online: boolean;
  profile: Profile;
  api: WorkspaceApi;
  store: OfflineStore;
  /** The notes as this client last saw them. */
  view: Map<string, { content: string; checksum: string }>;
  /** The words each draft (by path) inserted, acknowledged when it is sent. */
  draftWords: Map<string, string[]>;
}

export interface OfflineStats {
  steps: number;
  restarts: number;
  kills: number;
  outcomes: Record<SyncOutcome['kind'], number>;
  /** Acknowledged words checked at the last quiescence. */
  wordsChecked: number;
}

/** The driver: one server, CLIENTS simulated workspaces, the words acknowledged so far. */
export class OfflineHarness {
  stats: OfflineStats = {
    steps: 0,
    restarts: 0,
    kills: 0,
    outcomes: { saved: 0, merged: 0, created: 0, conflict: 0, renamed: 0, recreated: 0, failed: 0 },
    wordsChecked: 0,
  };
  clients: SimClient[] = [];
  /** Word → the path where it was acknowledged. */
  private acked = new Map<string, string>();
  /** Words an edit removed (its writer saw them). */
  private removed = new Set<string>();
  private proc: Proc | null = null;
  private key = '';
  private url = '';

  private constructor(private root: string) {}

  static async create(seed: number): Promise<OfflineHarness> {
    const h = new OfflineHarness(await mkdtemp(join(tmpdir(), 'quire-offline-')));
    await mkdir(h.vault, { recursive: true });
    const rng = createRng(seed);
    for (const p of SEED_NOTES) {
      await mkdir(dirname(join(h.vault, p)), { recursive: true });
      await writeFile(join(h.vault, p), seedText(p, rng));
    }
    await h.start();
    for (let id = 0; id < CLIENTS; id++) {
      const profile: Profile = {
        id: `sim-${id}`,
        serverId: 'sim',
        serverUrl: h.url,
        apiKey: h.key,
        mode: 'direct',
        relayUrl: null,
        name: `client ${id}`,
        linkedAt: new Date(0).toISOString(),
      };
      const c: SimClient = {
        id,
        online: true,
        profile,
        api: workspaceApi(profile),
        store: offlineStore(memoryStorage() as unknown as Storage, profile.id),
        view: new Map(),
        draftWords: new Map(),
      };
      for (const p of SEED_NOTES) await h.read(c, p);
      h.clients.push(c);
    }
    return h;
  }

  get vault() {
    return join(this.root, 'data', 'notes');
  }

  /** What the generator needs. */
  genState(): GenState {
    return {
      online: this.clients.map((c) => c.online),
      known: this.clients.map((c) => new Set([...c.view.keys(), ...c.store.drafts().map((d) => d.path)])),
    };
  }

  private async start(): Promise<void> {
    const p = spawnModelServer('offline-server', this.root);
    this.proc = p;
    const { url } = await p.waitForLog((l) => l.msg === 'listening', 60_000);
    await p.waitForLog((l) => l.msg === 'index ready', 120_000);
    this.url = url;
    if (!this.key) {
      const s = (await fetch(`${url}/api/v1/system/setup`).then((r) => r.json())) as any;
      this.key = s.data.apiKey;
    }
    for (const c of this.clients) c.profile.serverUrl = url;
  }

  /** Reads `path` into the client's view (a note deleted since leaves it); its text, or null. */
  private async read(c: SimClient, path: string): Promise<string | null> {
    try {
      const n = await c.api.read(path);
      c.view.set(path, { content: n.content, checksum: n.checksum });
      return n.content;
    } catch (err) {
      if (!(err instanceof ApiFailure && err.status === 404)) throw err;
      c.view.delete(path);
      return null;
    }
  }

  private ack(words: readonly string[], path: string) {
    for (const w of words) this.acked.set(w, path);
  }

  /** Applies one operation (skipped when it does not apply to this replay's state). */
  async step(op: OfflineOp): Promise<void> {
    this.stats.steps++;
    switch (op.t) {
      case 'edit':
        return this.edit(this.clients[op.c]!, op.path, op.edit);
      case 'new':
        return this.newNote(this.clients[op.c]!, op.path, op.token);
      case 'offline':
        this.clients[op.c]!.online = false;
        return;
      case 'reconnect':
        await this.reconnect(this.clients[op.c]!);
        return;
      case 'read': {
        const c = this.clients[op.c]!;
        if (c.online && c.view.has(op.path)) await this.read(c, op.path).catch(() => this.wentOffline(c));
        return;
      }
      case 'disk':
        return this.disk(op.path, op.edit);
      case 'disk-remove':
        return this.diskRemove(op.path);
      case 'restart':
        return this.restart(op);
      case 'quiesce':
        return this.quiesce();
    }
  }

  private wentOffline(c: SimClient) {
    c.online = false;
  }

  /** The text a client edits: its draft of `path`, else its view (with that view's base). */
  private source(c: SimClient, path: string): { text: string; base: string | null } | null {
    const d = c.store.draft(path);
    if (d) return { text: d.text, base: d.baseChecksum };
    const v = c.view.get(path);
    return v ? { text: v.content, base: v.checksum } : null;
  }

  private keepDraft(c: SimClient, path: string, text: string, base: string | null, words: string[]) {
    if (!c.store.saveDraft({ path, text, baseChecksum: base }))
      throw new Violation(`client ${c.id}: the offline store refused a draft of ${path}`);
    c.draftWords.set(path, [...(c.draftWords.get(path) ?? []), ...words]);
    c.online = false;
  }

  private async edit(
    c: SimClient,
    path: string,
    edit: Edit,
    inFlight?: (p: Promise<unknown>) => Promise<void>,
  ) {
    const src = this.source(c, path);
    if (!src) return;
    const { text, removed } = applyEdit(src.text, edit);
    for (const w of removed) this.removed.add(w);
    const words = edit.kind === 'delete' ? [] : [edit.token];
    // A client with drafts keeps adding to them until it reconnects: its writes go in order.
    if (!c.online || c.store.draft(path) || src.base === null)
      return this.keepDraft(c, path, text, src.base, words);
    const sent = c.api.update(path, text, src.base);
    // Handled from the start: a SIGKILL may fail it before it is awaited below.
    sent.catch(() => {});
    await inFlight?.(sent);
    try {
      const n = await sent;
      c.view.set(path, { content: n.content, checksum: n.checksum });
      this.ack(words, path);
      this.count(n.merge?.copy ? 'conflict' : n.merge ? 'merged' : 'saved');
    } catch (err) {
      // Deleted meanwhile: the editor says so, nothing was acknowledged.
      if (err instanceof ApiFailure && err.status === 404) {
        c.view.delete(path);
        return;
      }
      if (!isUnreachable(err))
        throw new Violation(`client ${c.id}: an edit of ${path} failed: ${String(err)}`);
      this.keepDraft(c, path, text, src.base, words);
    }
  }

  private async newNote(c: SimClient, path: string, token: string) {
    if (c.view.has(path) || c.store.draft(path)) return;
    const text = `# ${path.replace(/^.*\//, '').replace(/\.md$/, '')}\n\n${token} apple river\n`;
    if (!c.online) return this.keepDraft(c, path, text, null, [token]);
    try {
      const n = await createUnderFreeName(c.api, path, text);
      c.view.set(n.path, { content: n.content, checksum: n.checksum });
      this.ack([token], n.path);
      this.count(n.path === path ? 'created' : 'renamed');
    } catch (err) {
      if (!isUnreachable(err)) throw new Violation(`client ${c.id}: creating ${path} failed: ${String(err)}`);
      this.keepDraft(c, path, text, null, [token]);
    }
  }

  private count(kind: SyncOutcome['kind']) {
    this.stats.outcomes[kind]++;
  }

  /** Sends the client's drafts; true when all were sent. */
  private async reconnect(c: SimClient): Promise<boolean> {
    if (!this.proc?.alive()) return false;
    c.online = true;
    const report = await syncDrafts(c.api, c.store);
    for (const o of report.outcomes) {
      this.count(o.kind);
      if (o.kind === 'failed')
        throw new Violation(`client ${c.id}: the server refused the draft of ${o.path}: ${o.message}`);
      const at = o.kind === 'renamed' || o.kind === 'recreated' ? o.to : o.path;
      this.ack(c.draftWords.get(o.path) ?? [], at);
      c.draftWords.delete(o.path);
      if (at !== o.path) c.view.delete(o.path);
      await this.read(c, at);
    }
    if (report.interrupted) c.online = false;
    return !report.interrupted;
  }

  /** An edit of the file on disk (written whole, by rename, as editors do). */
  private async disk(path: string, edit: Edit) {
    const file = join(this.vault, path);
    const now = await readFile(file, 'utf8').catch(() => null);
    if (now === null) return;
    const { text, removed } = applyEdit(now, edit);
    for (const w of removed) this.removed.add(w);
    const tmp = join(this.root, `tmp-${this.stats.steps}`);
    await writeFile(tmp, text);
    await rename(tmp, file);
    if (edit.kind !== 'delete') this.ack([edit.token], path);
  }

  /**
   * The file deleted on disk: its words go with it (the one who deleted it saw them), and so do
   * those only its conflict lines pointed to (the copies stay, unlinked).
   */
  private async diskRemove(path: string) {
    const file = join(this.vault, path);
    const now = await readFile(file, 'utf8').catch(() => null);
    if (now === null) return;
    const seen = new Set<string>();
    const drop = async (p: string) => {
      if (seen.has(p)) return;
      seen.add(p);
      const text = await readFile(join(this.vault, p), 'utf8').catch(() => '');
      for (const w of text.match(/zq[a-z0-9]+/g) ?? []) this.removed.add(w);
      for (const l of conflictsIn(text)) await drop(l.copy);
    };
    await drop(path);
    await rm(file);
  }

  private async restart(op: Extract<OfflineOp, { t: 'restart' }>) {
    const p = this.proc!;
    this.stats.restarts++;
    if (op.how === 'term') {
      p.signal('SIGTERM');
      const { code, signal } = await p.exited;
      if (code !== 0)
        throw new Violation(`a clean stop ended with code ${code} signal ${signal}\n${p.tail()}`);
    } else {
      this.stats.kills++;
      const f = op.inFlight;
      const kill = async (sent: Promise<unknown>) => {
        await new Promise((r) => setTimeout(r, op.killAfterMs));
        await p.kill();
        await sent.catch(() => {});
      };
      if (f) await this.edit(this.clients[f.c]!, f.path, f.edit, kill);
      // The edit may have become a draft with nothing sent: the kill happens all the same.
      await p.kill();
    }
    for (const d of op.down) await this.step(d);
    await this.start();
  }

  /** Every client sends everything; then the views, the disk and the words are checked. */
  private async quiesce(): Promise<void> {
    for (const c of this.clients) {
      if (!(await this.reconnect(c))) throw new Violation(`client ${c.id} could not send its drafts`);
      if (c.store.drafts().length)
        throw new Violation(`client ${c.id} still holds drafts after sending them`);
    }
    // Read once everyone has sent (a later client's drafts change what an earlier one saw), and
    // again until the server shows the last disk edit (its watcher waits up to 2 s): bounded.
    for (const c of this.clients)
      for (const path of [...c.view.keys()]) {
        const deadline = Date.now() + DISK_SEEN_MS;
        for (;;) {
          const seen = await this.read(c, path);
          const disk = await readFile(join(this.vault, path), 'utf8').catch(() => null);
          if (disk === seen) break;
          if (Date.now() > deadline)
            throw new Violation(
              `client ${c.id}'s view of ${path} differs from the file on disk after ${DISK_SEEN_MS} ms\n  view: ${JSON.stringify(seen)}\n  disk: ${JSON.stringify(disk)}`,
            );
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    let checked = 0;
    for (const [word, path] of this.acked) {
      if (this.removed.has(word)) continue;
      checked++;
      if (!(await this.holds(path, word)))
        throw new Violation(
          `the acknowledged word ${word} is missing from ${path} and the conflict copies it links\n${await this.show(path)}`,
        );
    }
    this.stats.wordsChecked = checked;
  }

  /** Whether `word` is in the file at `path` or in a conflict copy it links (followed through). */
  private async holds(path: string, word: string, seen = new Set<string>()): Promise<boolean> {
    if (seen.has(path)) return false;
    seen.add(path);
    const text = await readFile(join(this.vault, path), 'utf8').catch(() => '');
    if (text.split(/\s+/).includes(word)) return true;
    for (const l of conflictsIn(text)) if (await this.holds(l.copy, word, seen)) return true;
    return false;
  }

  private async show(path: string): Promise<string> {
    const text = await readFile(join(this.vault, path), 'utf8').catch(() => '(no file)');
    return `  ${path}: ${JSON.stringify(text)}`;
  }

  async close(): Promise<void> {
    await this.proc?.kill();
    await rm(this.root, { recursive: true, force: true });
  }

  tail(): string {
    return this.proc?.tail() ?? '';
  }
}

/** Runs `ops` on a fresh server, then quiesces: the failing step's message, or null. */
export async function replayOffline(
  ops: OfflineOp[],
  seed: number,
): Promise<{ message: string; at: number } | null> {
  const h = await OfflineHarness.create(seed);
  try {
    for (const [i, op] of [...ops, { t: 'quiesce' } as const].entries()) {
      try {
        await h.step(op);
      } catch (err) {
        return { message: (err as Error).message, at: i };
      }
    }
    return null;
  } finally {
    await h.close();
  }
}

/** Delta debugging over `ops`: a shorter sequence that still fails, within `runs` replays and `ms`. */
export function shrinkOffline(
  ops: OfflineOp[],
  seed: number,
  runs: number,
  ms: number,
  log: (l: string) => void,
) {
  return ddmin(ops, (candidate) => replayOffline(candidate, seed), runs, ms, log);
}

export interface OfflineRunOptions {
  seed: number;
  ops: number;
  restarts: number;
  /** A quiescence every this many operations (and one at the end). */
  quiesceEvery?: number;
  shrinkRuns?: number;
  shrinkMs?: number;
  log?: (l: string) => void;
}

/** One seeded run; on a failure, the report to print (seed, message, minimal sequence, commands). */
export async function runOffline(
  o: OfflineRunOptions,
): Promise<{ stats: OfflineStats; report: string | null }> {
  const log = o.log ?? (() => {});
  const gen = new OfflineGenerator(o.seed);
  const every = Math.max(2, Math.floor(o.ops / (o.restarts + 1)));
  const quiesceEvery = o.quiesceEvery ?? 30;
  const done: OfflineOp[] = [];
  const h = await OfflineHarness.create(o.seed);
  let failure: string | null = null;
  try {
    for (let step = 1; step <= o.ops + 1 && !failure; step++) {
      const op: OfflineOp =
        step > o.ops || step % quiesceEvery === 0
          ? { t: 'quiesce' }
          : // A restart falls due every `every` steps; one due on a quiescence comes a step later.
            gen.next(h.genState(), h.stats.restarts < Math.min(o.restarts, Math.floor(step / every)));
      done.push(op);
      try {
        await h.step(op);
      } catch (err) {
        failure = `${(err as Error).message}${err instanceof Violation ? '' : `\n${h.tail()}`}`;
      }
      if (step % 50 === 0 || op.t === 'restart') log(`step ${step}: ${describeOp(op)}`);
    }
  } finally {
    await h.close();
  }
  if (!failure) return { stats: h.stats, report: null };
  log(`FAILED at step ${done.length} (seed ${o.seed}): ${failure}`);
  const file = join(tmpdir(), `quire-offline-${o.seed}-${Date.now()}.json`);
  const { minimal, message } = await shrinkOffline(
    done.filter((op) => op.t !== 'quiesce' || op === done.at(-1)),
    o.seed,
    o.shrinkRuns ?? 0,
    o.shrinkMs ?? 600_000,
    log,
  );
  await writeFile(file, JSON.stringify({ seed: o.seed, ops: minimal }, null, 1));
  const report = [
    `offline property failed: seed ${o.seed}, step ${done.length} of ${o.ops} ops, ${o.restarts} restarts`,
    failure,
    `minimal sequence (${minimal.length} of ${done.length} operations, then a quiescence), failing with: ${(message || failure).split('\n')[0]}`,
    ...minimal.map((op, i) => `  ${i + 1}. ${describeOp(op)}`),
    `replay the run:      npm run soak:offline -- --seed ${o.seed} --ops ${o.ops} --restarts ${o.restarts}`,
    `replay the sequence: npm run soak:offline -- --replay ${file}`,
  ].join('\n');
  return { stats: h.stats, report };
}
