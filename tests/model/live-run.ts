/**
 * The live editing property: simulated live editors (the workspace's LiveClient over real
 * WebSockets, the last one over plain requests as through the relay), REST writes with bases and edits of the file on disk, in a seeded random order,
 * against a real `quire` process restarted by SIGTERM and by SIGKILL. After every quiescence each
 * editor, the note as the API reads it and the file on disk agree; every acknowledged insertion
 * (a live word the server said it saved, a REST write answered 200, a disk edit) is in the note
 * (or a conflict copy beside it) exactly once, unless a later edit by someone who saw it removed it.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LiveClient } from '../../client-link/src/flow/live-client.ts';
import { openLivePoll } from '../../client-link/src/flow/live-poll.ts';
import { liveEditor, liveTicket } from '../helpers/live-ws.ts';
import { until } from '../helpers/wait.ts';
import { type Proc, startTs } from '../reliability/scenarios/procs.ts';
import { createRng, type Rng } from '../reliability/scenarios/rng.ts';

const NOTE = 'Live/shared.md';
const enc = encodeURIComponent;

export type LiveOp =
  | { t: 'type'; c: number; at: number }
  | { t: 'delete'; c: number; at: number }
  | { t: 'rest'; at: number }
  | { t: 'disk'; at: number }
  | { t: 'settle' }
  | { t: 'restart'; kill: boolean };

export interface LiveStats {
  steps: number;
  typed: number;
  deleted: number;
  rest: number;
  disk: number;
  restarts: number;
  kills: number;
  /** Acknowledged words checked at the end (present exactly once, or in a conflict copy). */
  wordsChecked: number;
  /** Typed words not acknowledged before a restart (allowed to be lost, and checked never doubled). */
  unacked: number;
  conflictCopies: number;
}

/** The operations of a run: `ops` steps over `clients` editors, `restarts` of them restarts (every second a SIGKILL). */
export function liveOps(rng: Rng, ops: number, restarts: number, clients: number): LiveOp[] {
  const out: LiveOp[] = [];
  const every = Math.floor(ops / (restarts + 1));
  for (let i = 0; i < ops; i++) {
    if (restarts > 0 && i > 0 && i % every === 0 && out.filter((o) => o.t === 'restart').length < restarts) {
      out.push({ t: 'restart', kill: out.filter((o) => o.t === 'restart').length % 2 === 1 });
      continue;
    }
    const r = rng.next();
    const c = rng.int(0, clients - 1);
    const at = rng.next();
    if (r < 0.55) out.push({ t: 'type', c, at });
    else if (r < 0.65) out.push({ t: 'delete', c, at });
    else if (r < 0.8) out.push({ t: 'rest', at });
    else if (r < 0.88) out.push({ t: 'disk', at });
    else out.push({ t: 'settle' });
  }
  return out;
}

/** Word boundaries of `text`: where a word may go without touching another. */
function boundaryAt(text: string, at: number): number {
  let i = Math.floor(at * (text.length + 1));
  while (i > 0 && i < text.length && !/\s/.test(text[i - 1]!)) i++;
  return Math.min(i, text.length);
}

const count = (text: string, word: string): number => text.split(/\s+/).filter((w) => w === word).length;

class LiveRun {
  stats: LiveStats = {
    steps: 0,
    typed: 0,
    deleted: 0,
    rest: 0,
    disk: 0,
    restarts: 0,
    kills: 0,
    wordsChecked: 0,
    unacked: 0,
    conflictCopies: 0,
  };
  private proc: Proc | null = null;
  private url = '';
  private key = '';
  private editors: { client: LiveClient; close(): Promise<void> }[] = [];
  /** Words acknowledged (must be present), and typed words waiting for their editor's ack. */
  private acked = new Set<string>();
  private pending: { word: string; c: number; sent: number }[] = [];
  /** Words that may or may not be there (typed, never acknowledged), checked only never doubled. */
  private maybe = new Set<string>();
  private n = 0;

  constructor(
    private root: string,
    private clients: number,
  ) {}

  private get vault() {
    return join(this.root, 'data', 'notes');
  }

  private api(method: string, path: string, body?: unknown) {
    return fetch(`${this.url}/api/v1${path}`, {
      method,
      headers: { 'x-service-key': this.key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));
  }

  async start(): Promise<void> {
    this.proc = startTs('live-model-server', 'deploy/node/main.ts', {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(this.root, 'data'),
      PAIRING_MODE: 'open-port',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'info',
      LIVE_DEBOUNCE_MS: '200',
    });
    this.url = (await this.proc.waitForLog((l) => l.msg === 'listening', 60_000)).url;
    if (!this.key) {
      this.key = ((await (await fetch(`${this.url}/api/v1/system/setup`)).json()) as any).data.apiKey;
      await until('ready', async () => (await this.api('GET', '/notes')).status === 200, 60_000);
      const made = await this.api('POST', '/notes', { path: NOTE, content: 'start\n' });
      if (made.status !== 201) throw new Error(`create: ${made.status}`);
    }
    await until(
      'note readable',
      async () => (await this.api('GET', `/notes/${enc(NOTE)}`)).status === 200,
      60_000,
    );
    this.editors = [];
    for (let i = 0; i < this.clients; i++)
      this.editors.push(
        i === this.clients - 1 && i > 0
          ? await this.requestEditor()
          : await liveEditor(this.url, this.key, NOTE),
      );
  }

  /** An editor over plain requests (the way through the relay; the server's end is the same). */
  private async requestEditor() {
    const t = await liveTicket(this.url, this.key, NOTE);
    if (t.status !== 201) throw new Error(`ticket: ${t.status}`);
    const s = await openLivePoll({ serverUrl: this.url, apiKey: this.key }, t.body.data.ticket, (name) => ({
      name,
      color: '#000',
    }));
    return {
      client: s.client,
      async close() {
        s.close();
        s.client.destroy();
      },
    };
  }

  /** Moves typed words whose editor's ack arrived to the acknowledged set. */
  private collectAcks(): void {
    this.pending = this.pending.filter((p) => {
      const ed = this.editors[p.c];
      if (ed && ed.client.acked >= p.sent) {
        this.acked.add(p.word);
        return false;
      }
      return true;
    });
  }

  async step(op: LiveOp): Promise<void> {
    this.stats.steps++;
    if (op.t === 'type') {
      const ed = this.editors[op.c]!;
      const text = ed.client.text.toString();
      const word = `t${++this.n}`;
      ed.client.text.insert(boundaryAt(text, op.at), `${word} `);
      this.pending.push({ word, c: op.c, sent: ed.client.sent });
      this.stats.typed++;
    } else if (op.t === 'delete') {
      const ed = this.editors[op.c]!;
      const text = ed.client.text.toString();
      const words = [...text.matchAll(/[trd]\d+ /g)];
      if (!words.length) return;
      const m = words[Math.floor(op.at * words.length)]!;
      ed.client.text.delete(m.index!, m[0].length);
      // Removed by someone who saw it: no longer owed, wherever it was in its life.
      const w = m[0].trim();
      this.acked.delete(w);
      this.maybe.add(w);
      this.pending = this.pending.filter((p) => p.word !== w);
      this.stats.deleted++;
    } else if (op.t === 'rest') {
      const got = await this.api('GET', `/notes/${enc(NOTE)}`);
      const text = got.json.data.content as string;
      const word = `r${++this.n}`;
      const at = boundaryAt(text, op.at);
      const put = await this.api('PUT', `/notes/${enc(NOTE)}`, {
        content: `${text.slice(0, at)}${word} ${text.slice(at)}`,
        base: got.json.data.checksum,
      });
      if (put.status !== 200) throw new Error(`REST write with a base answered ${put.status}`);
      this.acked.add(word);
      this.stats.rest++;
    } else if (op.t === 'disk') {
      // An editor on disk reads and writes the whole file: done at a quiet moment, or its write
      // would overwrite what the server wrote meanwhile (a loss that is the editor's, not Quire's).
      await this.quiesce();
      const file = join(this.vault, NOTE);
      const text = await readFile(file, 'utf8');
      const word = `d${++this.n}`;
      const at = boundaryAt(text, op.at);
      await writeFile(file, `${text.slice(0, at)}${word} ${text.slice(at)}`);
      this.acked.add(word);
      this.stats.disk++;
    } else if (op.t === 'settle') {
      await until('acks', () => this.editors.every((e) => e.client.acked >= e.client.sent), 20_000);
    } else await this.restart(op.kill);
    this.collectAcks();
  }

  private async restart(kill: boolean): Promise<void> {
    this.stats.restarts++;
    const p = this.proc!;
    if (kill) {
      this.stats.kills++;
      // Typing in flight at the kill: sent, not yet written (the debounce has not passed).
      for (const [c, ed] of this.editors.entries()) {
        const word = `t${++this.n}`;
        ed.client.text.insert(0, `${word} `);
        this.pending.push({ word, c, sent: ed.client.sent });
        this.stats.typed++;
      }
      await p.kill();
    } else {
      p.signal('SIGTERM');
      const { code } = await p.exited;
      if (code !== 0) throw new Error(`a clean stop ended with code ${code}\n${p.tail()}`);
    }
    this.collectAcks();
    for (const w of this.pending) this.maybe.add(w.word);
    this.stats.unacked += this.pending.length;
    this.pending = [];
    for (const e of this.editors) await e.close();
    await this.start();
    await this.quiesce();
  }

  /** Waits until every editor, the API and the file hold one text; then checks the words. */
  async quiesce(): Promise<void> {
    let last = '';
    await until(
      'editors, the API and the file agree',
      async () => {
        const texts = this.editors.map((e) => e.client.text.toString());
        const api = (await this.api('GET', `/notes/${enc(NOTE)}`)).json.data?.content;
        const disk = await readFile(join(this.vault, NOTE), 'utf8');
        last = JSON.stringify({ texts, api, disk });
        return texts.every((t) => t === disk) && api === disk;
      },
      30_000,
    ).catch((err) => {
      throw new Error(`${err}\n${last}`);
    });
    this.collectAcks();
    await this.checkWords();
  }

  private async checkWords(): Promise<void> {
    const note = await readFile(join(this.vault, NOTE), 'utf8');
    const copies: string[] = [];
    for (const f of await readdir(join(this.vault, 'Live')))
      if (f.includes('(conflict')) copies.push(await readFile(join(this.vault, 'Live', f), 'utf8'));
    this.stats.conflictCopies = copies.length;
    for (const w of this.acked) {
      const n = count(note, w);
      if (n > 1) throw new Error(`"${w}" is ${n} times in the note`);
      if (n === 0 && !copies.some((c) => count(c, w) > 0))
        throw new Error(`the acknowledged "${w}" is lost\nnote: ${note}`);
    }
    for (const w of this.maybe)
      if (count(note, w) > 1) throw new Error(`"${w}" (never acknowledged) is doubled`);
    this.stats.wordsChecked = this.acked.size;
  }

  async stop(): Promise<void> {
    for (const e of this.editors) await e.close().catch(() => {});
    await this.proc?.kill();
    await rm(this.root, { recursive: true, force: true });
  }
}

/** Runs the property; `report` is null when it held, else the seed, the step and what failed. */
export async function runLive(o: {
  seed: number;
  ops: number;
  restarts: number;
  clients?: number;
  log?: (l: string) => void;
}): Promise<{ report: string | null; stats: LiveStats }> {
  const log = o.log ?? (() => {});
  const ops = liveOps(createRng(o.seed), o.ops, o.restarts, o.clients ?? 3);
  const run = new LiveRun(await mkdtemp(join(tmpdir(), 'quire-live-model-')), o.clients ?? 3);
  let at = -1;
  try {
    await run.start();
    for (const [i, op] of ops.entries()) {
      at = i;
      await run.step(op);
      if ((i + 1) % 100 === 0) log(`live property: ${i + 1} of ${ops.length} steps`);
    }
    at = ops.length;
    await run.quiesce();
    return { report: null, stats: run.stats };
  } catch (err) {
    const seq = ops.slice(Math.max(0, at - 10), at + 1).map((op) => JSON.stringify(op));
    return {
      report: `live property failed (seed ${o.seed}) at step ${at + 1}: ${String(err)}\nthe steps before it:\n${seq.join('\n')}`,
      stats: run.stats,
    };
  } finally {
    await run.stop();
  }
}
