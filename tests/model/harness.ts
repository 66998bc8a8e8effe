/**
 * The driver of the model test: a real `quire` server process (deploy/node/main.ts, port 0, temp
 * DATA_DIR) that operations are applied to, through REST, MCP and the vault's files on disk, with
 * restarts (SIGTERM, or SIGKILL at a random moment, with a write in flight), the model following
 * each acknowledged change and `check` comparing every read with it after every step.
 */
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Proc, startTs } from '../reliability/scenarios/procs.ts';
import { createRng, type Rng, subSeed } from '../reliability/scenarios/rng.ts';
import { check, comparable, NOTE_FIELDS, type ReadState, readState, Violation } from './checks.ts';
import { type Answer, type Client, client } from './client.ts';
import { sha256, VaultModel } from './model.ts';
import { type DiskOp, type Op, patched, replaced, type WriteOp } from './ops.ts';

/** How long the server may take to show a change made on disk (the watcher's delay is ≤ 2 s). */
const DISK_SEEN_MS = 20_000;
/** How long a started server may answer "not ready". */
const READY_MS = 90_000;

const enc = encodeURIComponent;

export interface HarnessStats {
  steps: number;
  restarts: number;
  kills: number;
  /** Reads answered 503 "not ready" right after a start. */
  notReady: number;
  /** Writes in flight at a SIGKILL that the restarted server shows as done. */
  cutApplied: number;
}

/** The real server a model run drives: its data (and vault) under `root/data`, open-port, no rate limit. */
export function spawnModelServer(name: string, root: string) {
  return startTs(name, 'deploy/node/main.ts', {
    PORT: '0',
    RELAY_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: join(root, 'data'),
    PAIRING_MODE: 'open-port',
    RATE_LIMIT: '0',
    LOG_LEVEL: 'info',
  });
}

export class Harness {
  model = new VaultModel();
  stats: HarnessStats = { steps: 0, restarts: 0, kills: 0, notReady: 0, cutApplied: 0 };
  private reads: ReadState = readState();
  private proc: Proc | null = null;
  private c: Client | null = null;
  private key = '';
  private rng: Rng;
  private constructor(
    private root: string,
    seed: number,
  ) {
    this.rng = createRng(subSeed(seed, 7));
  }

  static async create(seed: number): Promise<Harness> {
    const h = new Harness(await mkdtemp(join(tmpdir(), 'quire-model-')), seed);
    await mkdir(h.vault, { recursive: true });
    await h.start();
    return h;
  }

  get vault() {
    return join(this.root, 'data', 'notes');
  }

  /** Starts the server and checks every read from its first answer until all are ready. */
  private async start(): Promise<void> {
    const p = spawnModelServer('model-server', this.root);
    this.proc = p;
    const { url } = await p.waitForLog((l) => l.msg === 'listening', 60_000);
    if (!this.key) {
      const s = await fetch(`${url}/api/v1/system/setup`).then((r) => r.json() as any);
      this.key = s.data.apiKey;
    }
    this.c?.close();
    this.c = client(url, this.key);
    const deadline = Date.now() + READY_MS;
    for (;;) {
      const notReady = await check(this.c, this.model, this.reads, this.rng, false);
      this.stats.notReady += notReady;
      if (notReady === 0) return;
      if (Date.now() > deadline) throw new Violation(`the server answered "not ready" for ${READY_MS} ms`);
      if (!p.alive()) throw new Violation(`the server ended while starting\n${p.tail()}`);
    }
  }

  /** Applies one operation and checks every read against the model. */
  async step(op: Op): Promise<void> {
    this.stats.steps++;
    if (op.t === 'restart') await this.restart(op);
    else if (op.t.startsWith('disk-')) await this.disk(op as DiskOp, true);
    else await this.write(op as WriteOp);
    await check(this.c!, this.model, this.reads, this.rng, true);
  }

  private expectNote(what: string, a: Answer | { data: any }, path: string) {
    const data = 'json' in a ? a.json?.data : a.data;
    const want = this.model.note(path);
    const got = comparable(
      data,
      NOTE_FIELDS.filter((k) => data && k in data),
    );
    const w = comparable(want, Object.keys(got));
    if (JSON.stringify(got) !== JSON.stringify(w))
      throw new Violation(
        `${what}: the answer differs from the model\n  got:  ${JSON.stringify(got)}\n  want: ${JSON.stringify(w)}`,
      );
  }

  private async write(op: WriteOp): Promise<void> {
    const c = this.c!;
    const m = this.model;
    const fail = (status: number | string, text: string) => {
      throw new Violation(`${op.t} answered ${status}: ${text.slice(0, 300)}`);
    };
    if (op.t === 'restore') {
      const item = m.trash.find(
        (t) => !t.optional && t.path === op.path && sha256(t.content) === op.checksum,
      )!;
      if (!item.id) {
        const t = await c.request('GET', '/trash');
        item.id = t.json?.data?.find((x: any) => x.path === item.path && x.checksum === op.checksum)?.id;
        if (!item.id) throw new Violation(`restore: no trash item for ${op.path} (${op.checksum})`);
      }
      const a = await c.request('POST', `/trash/${enc(item.id)}/restore`);
      if (a.status !== 200) fail(a.status, a.text);
      m.restore(item);
      this.words(item.content);
      return;
    }
    if (op.via === 'mcp') return this.writeMcp(op);
    let a: Answer;
    switch (op.t) {
      case 'create':
        a = await c.request('POST', '/notes', { body: { path: op.path, content: op.content } });
        if (a.status !== 201) fail(a.status, a.text);
        m.write(op.path, op.content, true);
        this.words(op.content);
        return this.expectNote('create', a, op.path);
      case 'put':
        a = await c.request('PUT', `/notes/${enc(op.path)}`, { body: { content: op.content } });
        if (a.status !== 200) fail(a.status, a.text);
        m.write(op.path, replaced(m.notes.get(op.path)!, op.content), true);
        this.words(op.content);
        return this.expectNote('put', a, op.path);
      case 'patch': {
        const body = { operation: 'append', target: { type: 'document' }, content: op.text };
        a = await c.request('PATCH', `/notes/${enc(op.path)}`, { body });
        if (a.status !== 200) fail(a.status, a.text);
        m.write(op.path, patched(m.notes.get(op.path)!, op.text), true);
        this.words(op.text);
        return this.expectNote('patch', a, op.path);
      }
      case 'move':
        a = await c.request('POST', `/notes/${enc(op.from)}/move`, { body: { path: op.to } });
        if (a.status !== 200) fail(a.status, a.text);
        m.move(op.from, op.to);
        if (a.json.data.rewritten?.length) fail(200, `rewrote links although no name changed: ${a.text}`);
        return this.expectNote('move', a, op.to);
      case 'delete':
        a = await c.request('DELETE', `/notes/${enc(op.path)}`);
        if (a.status !== 200 || a.json.data.deleted !== op.path) fail(a.status, a.text);
        m.remove(op.path, 'api', a.json.data.trashId);
    }
  }

  private async writeMcp(op: Exclude<WriteOp, { t: 'restore' }>): Promise<void> {
    const c = this.c!;
    const m = this.model;
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await c.tool(name, args);
      if (!r.ok) throw new Violation(`MCP ${name} failed (${r.answer.status}): ${r.text.slice(0, 300)}`);
      return r;
    };
    switch (op.t) {
      case 'create':
        await call('create_note', { path: op.path, content: op.content }).then((r) => {
          m.write(op.path, op.content, true);
          this.expectNote('MCP create_note', r, op.path);
        });
        return this.words(op.content);
      case 'put':
        await call('update_note', { path: op.path, content: op.content }).then((r) => {
          m.write(op.path, replaced(m.notes.get(op.path)!, op.content), true);
          this.expectNote('MCP update_note', r, op.path);
        });
        return this.words(op.content);
      case 'patch': {
        const args = { path: op.path, operation: 'append', target: { type: 'document' }, content: op.text };
        const r = await call('patch_note', args);
        m.write(op.path, patched(m.notes.get(op.path)!, op.text), true);
        this.expectNote('MCP patch_note', r, op.path);
        return this.words(op.text);
      }
      case 'move': {
        const r = await call('move_note', { path: op.from, to: op.to });
        m.move(op.from, op.to);
        return this.expectNote('MCP move_note', { data: r.data.note ?? r.data }, op.to);
      }
      case 'delete':
        await call('delete_note', { path: op.path });
        m.remove(op.path, 'api');
    }
  }

  /** Remembers the search words of a text (its first token, the generator's unique word). */
  private words(text: string) {
    const w = /zq[a-z0-9]+/.exec(text)?.[0];
    if (w) this.reads.words = [...this.reads.words.slice(-4), w];
  }

  /** A change on disk; with `live`, waits until the server shows it (bounded, never a sleep). */
  private async disk(op: DiskOp, live: boolean): Promise<void> {
    const m = this.model;
    const file = (p: string) => join(this.vault, p);
    if (op.t === 'disk-write') {
      await mkdir(dirname(file(op.path)), { recursive: true });
      const tmp = join(this.root, `tmp-${process.pid}-${this.stats.steps}`);
      await writeFile(tmp, op.content);
      await rename(tmp, file(op.path));
      m.write(op.path, op.content, false);
      this.words(op.content);
      if (live) await this.seen(op.path, sha256(op.content));
    } else if (op.t === 'disk-rename') {
      await mkdir(dirname(file(op.to)), { recursive: true });
      await rename(file(op.from), file(op.to));
      m.move(op.from, op.to, 'disk');
      m.versions.delete(op.to);
      if (live) {
        await this.seen(op.from, null);
        await this.seen(op.to, sha256(m.notes.get(op.to)!));
      }
    } else {
      await rm(file(op.path));
      m.remove(op.path, 'disk');
      if (live) await this.seen(op.path, null);
    }
  }

  /** Waits until the note at `path` has `checksum` (null: until it is gone) and the feed said so. */
  private async seen(path: string, checksum: string | null): Promise<void> {
    const deadline = Date.now() + DISK_SEEN_MS;
    for (;;) {
      const a = await this.c!.request('GET', `/notes/${enc(path)}`);
      const now = a.status === 200 ? a.json.data.checksum : a.status === 404 ? null : undefined;
      if (now === checksum) break;
      if (Date.now() > deadline)
        throw new Violation(
          `the server did not show the disk change of ${path} within ${DISK_SEEN_MS} ms (answers ${a.status})`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
    // The change feed must tell it too (peeked: the checks after the step read the feed in turn).
    const told = (e: { type: string; data: any }) =>
      checksum === null
        ? (e.type === 'note.deleted' && e.data.path === path) ||
          (e.type === 'note.moved' && e.data.from === path)
        : e.data.path === path && e.data.checksum === checksum;
    for (;;) {
      const next = this.reads.feed.next;
      if (next === null) return;
      const a = await this.c!.request('GET', `/events?after=${next}&wait=1`, {
        headers: { accept: 'application/json' },
      });
      if (a.status === 200 && (a.json.data.reset || a.json.data.events.some(told))) return;
      if (Date.now() > deadline)
        throw new Violation(
          `the change feed did not tell the disk change of ${path} within ${DISK_SEEN_MS} ms`,
        );
    }
  }

  private async restart(op: Extract<Op, { t: 'restart' }>): Promise<void> {
    const p = this.proc!;
    this.stats.restarts++;
    if (op.how === 'term') {
      p.signal('SIGTERM');
      const { code, signal } = await p.exited;
      if (code !== 0)
        throw new Violation(`a clean stop (SIGTERM) ended with code ${code} signal ${signal}\n${p.tail()}`);
    } else {
      this.stats.kills++;
      const before = op.inFlight ? (this.model.notes.get(op.inFlight.path) ?? null) : null;
      const after =
        op.inFlight?.t === 'put' ? replaced(before ?? '', op.inFlight.content) : op.inFlight?.content;
      const sent = op.inFlight ? this.sendInFlight(op.inFlight) : Promise.resolve(0);
      await new Promise((r) => setTimeout(r, op.killAfterMs));
      await p.kill();
      const status = await sent;
      if (op.inFlight) await this.settleCut(op.inFlight.path, after!, before, status);
    }
    this.c?.close();
    for (const d of op.downtime) await this.disk(d, false);
    await this.start();
  }

  private async sendInFlight(w: NonNullable<Extract<Op, { t: 'restart' }>['inFlight']>): Promise<number> {
    const a =
      w.t === 'create'
        ? await this.c!.request('POST', '/notes', { body: { path: w.path, content: w.content } })
        : await this.c!.request('PUT', `/notes/${enc(w.path)}`, { body: { content: w.content } });
    return a.status;
  }

  /** After a SIGKILL: the write in flight is on disk whole or not at all; acknowledged, it is there. */
  private async settleCut(path: string, after: string, before: string | null, status: number) {
    const onDisk = await readFile(join(this.vault, path), 'utf8').catch(() => null);
    if (status >= 200 && status < 300 && onDisk !== after)
      throw new Violation(`an acknowledged write of ${path} (status ${status}) is lost after SIGKILL`);
    if (onDisk === after) {
      this.stats.cutApplied++;
      this.model.write(path, after, false);
      this.words(after);
    } else if (onDisk !== before)
      throw new Violation(
        `${path} after SIGKILL is neither its old nor its new text (${onDisk?.length} chars)`,
      );
  }

  async close(): Promise<void> {
    this.c?.close();
    await this.proc?.kill();
    await rm(this.root, { recursive: true, force: true });
  }

  tail(): string {
    return this.proc?.tail() ?? '';
  }
}
