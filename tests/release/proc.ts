/** A child process of the unpacked release (cwd: the folder it was unpacked in), with its output. */
import { type ChildProcess, spawn } from 'node:child_process';

/** The environment a release process gets: nothing of this repo's (no NODE_OPTIONS, no tsx). */
export function bareEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
  };
  return { ...env, ...extra };
}

/** `node bin/quire.js <args>` in `cwd`. */
export function quire(cwd: string, args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['bin/quire.js', ...args], {
    cwd,
    env: bareEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { text: '' };
  child.stdout?.on('data', (d) => {
    out.text += d;
  });
  child.stderr?.on('data', (d) => {
    out.text += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    out,
    exited,
    /** The first log line whose msg is `msg` (waits for it, up to `ms`). */
    async logged(msg: string, ms = 20_000): Promise<Record<string, unknown>> {
      const deadline = Date.now() + ms;
      for (;;) {
        for (const l of out.text.split('\n')) {
          if (!l.startsWith('{')) continue;
          const j = JSON.parse(l) as Record<string, unknown>;
          if (j.msg === msg) return j;
        }
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}:\n${out.text}`);
        if (Date.now() > deadline) throw new Error(`"${msg}" not logged in time:\n${out.text}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** SIGTERM (if still running), then the exit code. */
    async stop(): Promise<number | null> {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** `node bin/quire.js <args>` to its exit: code and output. */
export async function quireOnce(cwd: string, args: string[], env: Record<string, string>) {
  const p = quire(cwd, args, env);
  const code = await p.exited;
  return { code, text: p.out.text };
}
