import { type ChildProcess, fork } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A message between the bench runner and one of its child processes. */
export type ChildMessage = { type: string } & Record<string, unknown>;

/** A running child process (server, ceiling, in-process probe) spoken to over IPC. */
export interface BenchChild {
  pid: number;
  /** Waits for the next message of `type`; rejects on an `error` message, exit, or timeout. */
  waitFor<T extends ChildMessage>(type: string, timeoutMs?: number): Promise<T>;
  /** Sends `msg` and waits for the answer of type `reply`. */
  ask<T extends ChildMessage>(msg: ChildMessage, reply: string, timeoutMs?: number): Promise<T>;
  /** Asks the child to stop cleanly; kills it when it does not exit within `timeoutMs`. */
  stop(timeoutMs?: number): Promise<ChildMessage | null>;
  /** The last lines it wrote to stdout and stderr, for error messages. */
  output(): string;
}

const live = new Set<ChildProcess>();

/** Kills every child still running (SIGKILL). Safe to call from an `exit` handler. */
export function killAllChildren(): void {
  for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  live.clear();
}

process.on('exit', killAllChildren);

const TSX = import.meta.resolve('tsx');

/** Starts `script` (a .ts file) under tsx with `env` added, and an IPC channel. */
export function startChild(
  script: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): BenchChild {
  const proc = fork(script, [], {
    execArgv: [...nodeFlags, '--import', TSX],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  if (proc.pid === undefined) throw new Error(`could not start ${script}`);
  live.add(proc);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const inbox: ChildMessage[] = [];
  const waiters = new Set<() => void>();
  let exited = false;
  proc.on('message', (m) => {
    inbox.push(m as ChildMessage);
    for (const w of [...waiters]) w();
  });
  proc.on('exit', () => {
    exited = true;
    live.delete(proc);
    for (const w of [...waiters]) w();
  });

  const waitFor = <T extends ChildMessage>(type: string, timeoutMs = 600_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const i = inbox.findIndex((m) => m.type === type || m.type === 'error');
        if (i >= 0) {
          const [m] = inbox.splice(i, 1);
          done();
          if (m!.type === 'error') reject(new Error(`${script}: ${String(m!.message)}\n${tail}`));
          else resolve(m as T);
        } else if (exited) {
          done();
          reject(new Error(`${script} exited before "${type}" (code ${proc.exitCode})\n${tail}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${script}: no "${type}" within ${timeoutMs} ms\n${tail}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    pid: proc.pid,
    waitFor,
    ask(msg, reply, timeoutMs) {
      const answer = waitFor<never>(reply, timeoutMs);
      proc.send(msg);
      return answer;
    },
    async stop(timeoutMs = 120_000) {
      if (exited) return null;
      const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      let reply: ChildMessage | null = null;
      try {
        proc.send({ type: 'stop' });
        reply = await waitFor('stopped', timeoutMs);
      } catch {
        proc.kill('SIGKILL');
      }
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
      return reply;
    },
    output: () => tail,
  };
}

/** The child's side: sends `msg` to the runner; resolves once it is handed to the channel. */
export function report(msg: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(msg, () => resolve());
  });
}

/** The child's side: memory in bytes (`maxRss` is the peak since start), CPU time in µs. */
export function memory(): {
  rss: number;
  heapUsed: number;
  external: number;
  maxRss: number;
  cpuUs: number;
  stdoutQueued: number;
} {
  // With --expose-gc, the figures are taken after a full collection (what stays, not what waits).
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    external: m.external,
    maxRss: process.resourceUsage().maxRSS * 1024,
    cpuUs: cpu.user + cpu.system,
    stdoutQueued: process.stdout.writableLength,
  };
}

/** The child's side: exits when the runner goes away, so no child outlives a crashed run. */
export function exitWithParent(): void {
  process.on('disconnect', () => process.exit(0));
}

/**
 * Serves a bare node:http ceiling from a child: listens on 127.0.0.1 port 0, reports `ready` with
 * its URL, answers `mem` with its memory, and on `stop` closes every connection and exits.
 */
export function serveCeiling(server: Server): void {
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    void report({ type: 'ready', url: `http://127.0.0.1:${port}` });
  });
  process.on('message', (m: { type?: string }) => {
    if (m.type === 'mem') void report({ type: 'mem', ...memory() });
    if (m.type === 'stop') {
      server.close();
      server.closeAllConnections();
      void report({ type: 'stopped' }).then(() => process.exit(0));
    }
  });
}

/** CPU ticks (1/100 s, user + system, every thread) of process `pid` so far, from /proc (Linux). */
async function procTicks(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/**
 * Waits until process `pid` is idle (under 4% of a CPU over half a second): after `index ready`
 * the server still saves its index cache, starts the watcher and reconciles the vault, seconds of
 * CPU that would otherwise be counted against the first route measured.
 */
export async function settle(pid: number, maxMs = 180_000): Promise<void> {
  const until = Date.now() + maxMs;
  let last = await procTicks(pid);
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await procTicks(pid);
    if (now - last <= 2) return;
    last = now;
  }
}
