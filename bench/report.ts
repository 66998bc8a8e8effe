import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { basename, join } from 'node:path';

/** Where and how a run was made. */
export interface RunInfo {
  date: string;
  node: string;
  nproc: number;
  cpu: string;
  ramGiB: number;
  commit: string;
  command: string;
  /** 1-minute load average at the start (and end, once known). */
  loadavg: number[];
}

/** Facts about this machine and checkout, for the head of a result file. */
export function machineInfo(command: string): RunInfo {
  let cpu = 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {}
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--', 'core', 'adapters', 'deploy', 'relay'],
      {
        encoding: 'utf8',
      },
    );
    if (dirty.trim()) commit += ' + uncommitted changes';
  } catch {}
  return {
    command,
    date: new Date().toISOString(),
    node: process.version,
    nproc: availableParallelism(),
    cpu,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    commit,
    loadavg: [loadavg()[0] ?? 0],
  };
}

/**
 * Where a run is written unless BENCH_OUT says otherwise: `bench/results/<date>-<name>.md` (UTC date).
 * BENCHMARKS.md is the current table, kept by hand; it links the result files.
 */
export function resultFile(name: string, now = new Date()): string {
  return join(import.meta.dirname, 'results', `${now.toISOString().slice(0, 10)}-${name}.md`);
}

/** Appends `section` to a result file, creating it with a title when missing. */
export async function appendResults(file: string, section: string): Promise<void> {
  if (!existsSync(file)) await writeFile(file, `# ${basename(file, '.md')}\n`);
  await appendFile(file, `\n${section}`);
}
