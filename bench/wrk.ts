/**
 * wrk runs against a Quire server and a bare node:http server, each pinned to one CPU (the server
 * on CPU 0 with `taskset -a -cp`, wrk on CPU 1) where the machine has two or more. Needs `wrk`
 * (Debian: `apt-get install wrk`) and `taskset` (util-linux).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** True when CPU pinning is possible: two CPUs or more and taskset installed. */
export async function canPin(): Promise<boolean> {
  if (availableParallelism() < 2) return false;
  try {
    await run('taskset', ['-p', String(process.pid)]);
    return true;
  } catch {
    return false;
  }
}

/** Pins every thread of `pid` to `cpu` (threads created later inherit it). */
export async function pin(pid: number, cpu: number): Promise<void> {
  await run('taskset', ['-a', '-cp', String(cpu), String(pid)]);
}

/** One wrk measurement. */
export interface WrkResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const ms = (v: string, unit: string): number =>
  Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);

/** Parses wrk's `--latency` output. */
export function parseWrk(label: string, out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  const lat = (p: string) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s|m)`).exec(out);
    return m ? ms(m[1]!, m[2]!) : Number.NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const e = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = e ? Number(e[1]) + Number(e[2]) + Number(e[3]) + Number(e[4]) : 0;
  return { label, rps, p50: lat('50'), p99: lat('99'), non2xx, errors };
}

export interface WrkOptions {
  label: string;
  url: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** Round robin over these paths (a Lua script); absent: the URL's own path. */
  paths?: readonly string[];
  /** Run wrk on this CPU. */
  cpu?: number;
  /** Folder for the Lua script. */
  tmp: string;
}

/** Runs wrk once and parses its answer. */
export async function wrk(o: WrkOptions): Promise<WrkResult> {
  const args = ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (o.paths) {
    const script = join(o.tmp, `paths-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
    const list = o.paths.map((p) => JSON.stringify(p)).join(',\n');
    await writeFile(
      script,
      `local paths = {\n${list}\n}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n`,
    );
    args.push('-s', script);
  }
  args.push(o.url);
  const [cmd, argv] =
    o.cpu === undefined ? ['wrk', args] : ['taskset', ['-c', String(o.cpu), 'wrk', ...args]];
  const { stdout } = await run(cmd, argv as string[], { maxBuffer: 1 << 20 });
  return parseWrk(o.label, stdout);
}
