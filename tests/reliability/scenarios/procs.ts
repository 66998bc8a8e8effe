/**
 * Child processes for the reliability tests and benchmarks: the note server, the relay and a
 * throwaway redis-server, each a real process that can be stopped, killed and started again.
 * Every process started here is remembered, so `killAll()` (tests' teardown, the bench's exit)
 * leaves none behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../helpers/ports.ts';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** One parsed JSON log line. */
export type LogLine = Record<string, any>;

/** A running child process with its JSON log lines. */
export interface Proc {
  name: string;
  pid: number;
  /** Resolves when the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True until it ends. */
  alive(): boolean;
  /** Calls `fn` for every JSON log line from now on. */
  onLine(fn: (line: LogLine) => void): void;
  /** Waits for a log line (including the last 2,000 seen) that satisfies `pred`. */
  waitForLog(pred: (line: LogLine) => boolean, ms?: number): Promise<LogLine>;
  /** The last output, for error messages. */
  tail(): string;
  /** Sends a signal (no-op once it ended). */
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL, then waits for the end. */
  kill(): Promise<void>;
  /** Resident set size in KiB (from /proc), null once it ended. */
  rssKb(): number | null;
}

/**
 * After `ms`, calls `stop` (the writers of `burst` see it and end their loops), SIGKILLs `proc`,
 * and waits for every writer: the shape of every kill point.
 */
export async function killDuringBurst(proc: Proc, ms: number, stop: () => void, burst: Promise<unknown>[]) {
  await new Promise((r) => setTimeout(r, ms));
  stop();
  await proc.kill();
  await Promise.all(burst);
}

const live = new Set<Proc>();

/** Kills every process started here that still runs, and waits for them. */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.kill()));
}

process.on('exit', () => {
  for (const p of live) p.signal('SIGKILL');
});

/** Starts `cmd args` with `env` added; stdout and stderr are scanned for JSON lines. */
export function startProc(name: string, cmd: string, args: string[], env: Record<string, string>): Proc {
  const child: ChildProcess = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  const history: LogLine[] = [];
  const listeners = new Set<(line: LogLine) => void>();
  let tail = '';
  let partial = '';
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-6000);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) {
      if (!l.startsWith('{')) continue;
      let j: LogLine;
      try {
        j = JSON.parse(l);
      } catch {
        continue;
      }
      history.push(j);
      if (history.length > 2000) history.shift();
      for (const fn of listeners) fn(j);
    }
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', (c: Buffer) => {
    tail = (tail + c.toString('utf8')).slice(-6000);
  });
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      ended = true;
      live.delete(proc);
      resolve({ code, signal });
    }),
  );
  const proc: Proc = {
    name,
    pid: child.pid,
    exited,
    alive: () => !ended,
    onLine: (fn) => listeners.add(fn),
    waitForLog(pred, ms = 20_000) {
      const found = history.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const done = (err: Error | null, line?: LogLine) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (err) reject(err);
          else resolve(line!);
        };
        const check = (line: LogLine) => {
          if (pred(line)) done(null, line);
        };
        const timer = setTimeout(
          () => done(new Error(`${name}: log line not seen in ${ms} ms\n${tail}`)),
          ms,
        );
        listeners.add(check);
        void exited.then(({ code, signal }) =>
          done(new Error(`${name} ended (code ${code}, signal ${signal}) before the log line\n${tail}`)),
        );
      });
    },
    tail: () => tail,
    signal(sig) {
      if (!ended) child.kill(sig);
    },
    async kill() {
      if (!ended) child.kill('SIGKILL');
      await exited;
    },
    rssKb() {
      if (ended) return null;
      try {
        const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) : null;
      } catch {
        return null;
      }
    },
  };
  live.add(proc);
  return proc;
}

/** A TypeScript entry point of this repository under tsx. */
export function startTs(name: string, entry: string, env: Record<string, string>): Proc {
  return startProc(name, process.execPath, ['--import', 'tsx', entry], env);
}

/** A running note server child (deploy/node/main.ts). */
export interface ServerProc extends Proc {
  url: string;
}

/** Polls `url` until it answers 200 with `data.status === 'ok'`; fails when `p` ends or after `ms`. */
async function healthy(p: Proc, url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await fetch(url)
      .then(async (r) => r.status === 200 && ((await r.json()) as any)?.data?.status === 'ok')
      .catch(() => false);
    if (ok) return;
    if (!p.alive() || Date.now() > deadline) throw new Error(`${p.name} did not become healthy\n${p.tail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const LOGS_REQUESTS = (env: Record<string, string>) =>
  (env.LOG_LEVEL ?? 'info') === 'info' || env.LOG_LEVEL === 'debug';

/**
 * Starts `npm start`'s entry point with `env`; resolves once it listens and its index is ready.
 * At LOG_LEVEL info the address comes from its log; quieter, it listens on a port picked here.
 */
export async function startServerProc(env: Record<string, string>, name = 'server'): Promise<ServerProc> {
  const logs = LOGS_REQUESTS(env);
  const port = logs ? '0' : String(await freePort());
  const p = startTs(name, 'deploy/node/main.ts', { PORT: port, RELAY_PORT: '0', LOG_LEVEL: 'info', ...env });
  try {
    if (!logs) {
      const url = `http://127.0.0.1:${port}`;
      await healthy(p, `${url}/api/v1/health`, 120_000);
      return Object.assign(p, { url });
    }
    const { url } = await p.waitForLog((l) => l.msg === 'listening');
    await p.waitForLog((l) => l.msg === 'index ready', 120_000);
    return Object.assign(p, { url: url as string });
  } catch (err) {
    await p.kill();
    throw err;
  }
}

/** Starts `npm run relay`'s entry point on `port`; resolves once it answers. */
export async function startRelayProc(port: number, env: Record<string, string>, name = 'relay') {
  const p = startTs(name, 'deploy/relay/main.ts', {
    RELAY_HOST: '127.0.0.1',
    RELAY_PORT: String(port),
    LOG_LEVEL: 'info',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await healthy(p, `${url}/api/v1/health`, 20_000);
    return Object.assign(p, { url });
  } catch (err) {
    await p.kill();
    throw err;
  }
}

/** A redis-server of our own on `port` (no persistence); resolves once it accepts connections. */
export async function startRedisProc(port: number, dir: string): Promise<Proc> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const p = startProc('redis', process.env.REDIS_SERVER_BIN ?? 'redis-server', [...args, '--dir', dir], {});
  const deadline = Date.now() + 10_000;
  while (!p.tail().includes('Ready to accept connections')) {
    if (!p.alive() || Date.now() > deadline) {
      await p.kill();
      throw new Error(`redis-server did not start on ${port}\n${p.tail()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return p;
}
