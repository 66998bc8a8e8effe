import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A child process running a TypeScript entry point of this repo, with its output collected. */
export function runTs(entry: string, env: Record<string, string>) {
  return runCommand(process.execPath, ['--import', 'tsx', entry], env);
}

/**
 * A child process (any runtime binary) started in the repo root, with its output collected.
 * `base` is the environment it starts from (default: this process's).
 */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  base: Record<string, string | undefined> = process.env,
) {
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    // Free ports unless a test asks otherwise, so parallel runs never collide.
    env: { ...base, PORT: '0', RELAY_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr?.on('data', (d) => {
    out.stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    out,
    exited,
    /** Waits until a JSON log line satisfies `pred`; returns it. */
    async waitForLog(
      pred: (line: Record<string, any>) => boolean,
      ms = 15_000,
    ): Promise<Record<string, any>> {
      const deadline = Date.now() + ms;
      for (;;) {
        for (const l of out.stdout.split('\n')) {
          if (!l.startsWith('{')) continue;
          const j = JSON.parse(l);
          if (pred(j)) return j;
        }
        if (child.exitCode !== null) throw new Error(`child exited: ${out.stderr}`);
        if (Date.now() > deadline)
          throw new Error(`log line not seen in time:\n${out.stdout}\n${out.stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    /** SIGTERM, then the exit code. */
    async stop(): Promise<number | null> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
