/**
 * Every shipped way of running the server reaches the same clean stop on the signals its
 * supervisor sends, and the next start takes the warm path: the stop saved the index snapshot, and
 * the next start checks the vault against it and parses no note again (it logs `vault checked
 * against the index snapshot` with `parsed: 0`).
 *
 * - `npm start`: SIGTERM to its process group (npm and node both get it, and npm passes it on, so
 *   node sees it twice), and Ctrl-C in a terminal (SIGINT to npm and node at once: twice again).
 * - the release started directly: SIGTERM to node.
 * - the image: docker cannot run here, so its ENTRYPOINT and CMD (read from deploy/Dockerfile) run
 *   in the release folder, as in /app, with the image's NODE_OPTIONS; `docker stop` sends SIGTERM
 *   to that process (PID 1 in the container).
 * - the systemd unit: its ExecStart runs in the release folder (its WorkingDirectory), in a process
 *   group of its own standing in for the unit's cgroup, and gets the unit's KillSignal as its
 *   KillMode sends it (control-group, the default, and mixed: to every process of the group).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.ts';
import { rootRelease } from '../helpers/root-release.ts';
import { bareEnv } from '../release/proc.ts';

const STAGE = join(ROOT, 'dist/release/quire-server');
const WARM_LOG = 'vault checked against the index snapshot';
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

/** True while `pid` runs (a zombie nobody reaped yet counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One start of `argv` in `cwd`, in its own process group; its JSON log lines. */
function launch(argv: string[], cwd: string, env: Record<string, string>) {
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: bareEnv({ PORT: '0', RELAY_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  child.stdout?.on('data', (d) => {
    text += d;
  });
  child.stderr?.on('data', (d) => {
    text += d;
  });
  // The exit status as a shell reports it: a process ended by a signal is 128 + its number (npm, its
  // child gone, passes a Ctrl-C's SIGINT back to itself, or gets it after its own listener left).
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + constants.signals[signal] : null))),
  );
  const lines = () =>
    text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const logged = async (msg: string) => {
    await until(`"${msg}" logged`, () => lines().some((l) => l.msg === msg) || child.exitCode !== null).catch(
      (err: Error) => {
        throw new Error(`${err.message}:\n${text}`);
      },
    );
    const line = lines().find((l) => l.msg === msg);
    if (!line) throw new Error(`exited ${child.exitCode} before "${msg}":\n${text}`);
    return line;
  };
  return { child, exited, logged, output: () => text };
}
type Launched = ReturnType<typeof launch>;

const started: { p: Launched; pid: number }[] = [];
const temps: string[] = [];
afterAll(() => {
  for (const { p, pid } of started) {
    for (const id of [pid, p.child.pid!]) if (running(id)) process.kill(id, 'SIGKILL');
  }
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A small vault and an empty data folder. */
function dirs() {
  const dir = mkdtempSync(join(tmpdir(), 'quire-stops-'));
  temps.push(dir);
  const vault = join(dir, 'vault');
  mkdirSync(join(vault, 'sub'), { recursive: true });
  for (let i = 0; i < 40; i++)
    writeFileSync(join(vault, i % 2 ? 'sub' : '', `note-${i}.md`), `# Note ${i}\n\nSee [[note-${i + 1}]].\n`);
  return { vault, data: join(dir, 'data') };
}

/**
 * Starts `argv` twice on one vault: the first start, once indexed, is stopped by `stop` (given the
 * launcher and the server's pid); it must stop cleanly, and the second start must take every note
 * from the snapshot. Returns the first start's exit code.
 */
async function stopsForAWarmStart(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  stop: (p: Launched, serverPid: number) => void,
): Promise<number | null> {
  const { vault, data } = dirs();
  const run = async () => {
    const p = launch(argv, cwd, { VAULT_DIR: vault, DATA_DIR: data, ...env });
    const pid = (await p.logged('listening')).pid as number;
    started.push({ p, pid });
    await p.logged('index ready');
    return { p, pid };
  };
  const first = await run();
  stop(first.p, first.pid);
  const code = await first.p.exited;
  await until('the server process ended', () => !running(first.pid), 15_000);
  expect(first.p.output()).toContain('"msg":"stopped"');
  expect(first.p.output()).not.toMatch(/again while stopping/);

  const second = await run();
  // The warm path: every note taken from the snapshot the stop left, none parsed again.
  expect(await second.p.logged(WARM_LOG)).toMatchObject({ notes: 40, reused: 40, parsed: 0, removed: 0 });
  process.kill(second.pid, 'SIGTERM');
  await second.p.exited;
  await until('the second server ended', () => !running(second.pid), 15_000);
  return code;
}

describe('clean stops leave what the next start needs', () => {
  // npm start runs this folder's release; built here (once for every file), so no start builds it.
  beforeAll(rootRelease, 360_000);

  const npmStart = ['npm', 'start', '--silent'];

  it('npm start: SIGTERM to its process group (npm and node), the server seeing it twice', async () => {
    const code = await stopsForAWarmStart(npmStart, ROOT, {}, (p) => process.kill(-p.child.pid!, 'SIGTERM'));
    expect(code).toBe(0);
  }, 60_000);

  it('npm start: Ctrl-C in a terminal (SIGINT to npm and node at once)', async () => {
    const code = await stopsForAWarmStart(npmStart, ROOT, {}, (p, pid) => {
      process.kill(p.child.pid!, 'SIGINT');
      process.kill(pid, 'SIGINT');
    });
    // npm reports the child's own exit code (0), or the signal's (130) when it took one itself (by
    // its exit code or by ending on the SIGINT, which a shell reports as 130 too).
    expect([0, 130]).toContain(code);
  }, 60_000);

  it('the release started directly: SIGTERM to node', async () => {
    const code = await stopsForAWarmStart(['node', 'bin/quire.js', 'serve'], STAGE, {}, (_p, pid) =>
      process.kill(pid, 'SIGTERM'),
    );
    expect(code).toBe(0);
  }, 60_000);

  it("the image's ENTRYPOINT and CMD (run here: no docker), stopped as `docker stop` does", async () => {
    const text = read('deploy/Dockerfile');
    const final = text.slice(text.lastIndexOf('\nFROM '));
    const entry = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(final)![1]!) as string[];
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(final)![1]!) as string[];
    const stopSignal = /^STOPSIGNAL (\S+)$/m.exec(final)?.[1] ?? 'SIGTERM';
    const nodeOptions = /NODE_OPTIONS=(\S+)/.exec(final)?.[1] ?? '';
    expect(/^WORKDIR (\S+)$/m.exec(final)?.[1]).toBe('/app');
    const code = await stopsForAWarmStart(
      [...entry, ...cmd],
      STAGE,
      { NODE_ENV: 'production', NODE_OPTIONS: nodeOptions },
      (_p, pid) => process.kill(pid, stopSignal as NodeJS.Signals),
    );
    expect(code).toBe(0);
  }, 60_000);

  it("the systemd unit's ExecStart, stopped by its KillSignal as its KillMode sends it", async () => {
    const unit = read('deploy/quire.service');
    const exec = /^ExecStart=(.+)$/m.exec(unit)![1]!.trim().split(/\s+/);
    const killSignal = (/^KillSignal=(\S+)$/m.exec(unit)?.[1] ?? 'SIGTERM') as NodeJS.Signals;
    const killMode = /^KillMode=(\S+)$/m.exec(unit)?.[1] ?? 'control-group';
    expect(['control-group', 'mixed'], 'a KillMode that signals the server itself').toContain(killMode);
    const nodeOptions = /^Environment=NODE_OPTIONS=(\S+)$/m.exec(unit)?.[1] ?? '';
    const code = await stopsForAWarmStart(
      exec,
      STAGE,
      { NODE_ENV: 'production', NODE_OPTIONS: nodeOptions },
      // control-group: KillSignal to every process of the unit (here its process group); mixed:
      // to the main one, which is the same single process (env execs node).
      (p) => process.kill(-p.child.pid!, killSignal),
    );
    expect(code).toBe(0);
  }, 60_000);
});
