import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { denoArgs, ensureRuntimes, runtimeBinary } from '../../deploy/shared/runtime-binary.ts';
import { buildWorker } from '../../deploy/workerd/build.ts';
import { tempDir } from '../helpers/app.ts';
import { ROOT, runCommand, runTs } from '../helpers/child.ts';
import { loadMiniflare, type MiniflareInstance } from '../helpers/miniflare.ts';
import { freePort } from '../helpers/ports.ts';
import { until } from '../helpers/wait.ts';
import type { RunningRuntime } from './contract.ts';

export { ensureRuntimes, runtimeVersion } from '../../deploy/shared/runtime-binary.ts';

/** How a child runtime is started: `quiet` logs warnings only (benchmarks) and waits on health. */
export interface StartOptions {
  quiet?: boolean;
  env?: Record<string, string>;
}

/** Starts a child-process runtime on a temp DATA_DIR; waits until it listens and has indexed. */
async function startChild(
  runtime: 'node' | 'bun' | 'deno',
  launch: (env: Record<string, string>, dir: string) => ReturnType<typeof runCommand>,
  opts: StartOptions,
  extra: Partial<RunningRuntime> = {},
): Promise<RunningRuntime> {
  // Bun and Deno come from the on-demand `runtimes` group (installed on first use, not by npm ci).
  if (runtime !== 'node') await ensureRuntimes();
  const tmp = await tempDir(`quire-${runtime}-`);
  const vaultDir = join(tmp.dir, 'notes');
  await mkdir(vaultDir, { recursive: true });
  const port = opts.quiet ? await freePort() : 0;
  const env = {
    PORT: String(port),
    DATA_DIR: tmp.dir,
    VAULT_DIR: vaultDir,
    LOG_LEVEL: opts.quiet ? 'warn' : 'info',
    NO_COLOR: '1',
    ...opts.env,
  };
  const p = launch(env, tmp.dir);
  try {
    let url = `http://127.0.0.1:${port}`;
    if (opts.quiet) await waitHealthy(url, p);
    else {
      url = (await p.waitForLog((l) => l.msg === 'listening', 30_000)).url;
      await p.waitForLog((l) => l.msg === 'index ready', 30_000);
    }
    return {
      runtime,
      url,
      vaultDir,
      clientUi: true,
      embeddedRelay: `no embedded relay on ${runtime}: the relay connector runs on Node only (open-port pairing)`,
      ...extra,
      async stop() {
        if (p.child.exitCode === null) p.child.kill('SIGTERM');
        const code = await Promise.race([
          p.exited,
          new Promise((r) => setTimeout(() => r('timeout'), 10_000)),
        ]);
        await p.kill();
        await tmp.cleanup();
        if (code !== 0)
          throw new Error(`${runtime} did not stop cleanly on SIGTERM (${code}):\n${p.out.stderr}`);
      },
    };
  } catch (err) {
    await p.kill();
    await tmp.cleanup();
    throw err;
  }
}

/** Polls health until the index is ready; fails early when the child dies. */
async function waitHealthy(url: string, p: ReturnType<typeof runCommand>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`exited: ${p.out.stderr}`);
    const ok = await fetch(`${url}/api/v1/health`)
      .then(async (r) => ((await r.json()) as { data?: { status?: string } }).data?.status === 'ok')
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`not healthy in time: ${p.out.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `npm start`: the Node root, with its embedded relay. */
export const startNode = (opts: StartOptions = {}) =>
  startChild('node', (env) => runTs('deploy/node/main.ts', env), opts, {
    embeddedRelay: opts.env?.PAIRING_MODE === 'open-port' ? 'open-port pairing asked for' : true,
  });

/** `bun deploy/bun/main.ts`. */
export const startBun = (opts: StartOptions = {}) =>
  startChild('bun', (env) => runCommand(runtimeBinary('bun'), ['deploy/bun/main.ts'], env), opts);

/** `deno run ... deploy/deno/main.ts`. */
export const startDeno = (opts: StartOptions = {}) =>
  startChild(
    'deno',
    (env, dir) =>
      runCommand(runtimeBinary('deno'), denoArgs('deploy/deno/main.ts', [dir]), {
        ...env,
        DENO_NO_UPDATE_CHECK: '1',
      }),
    opts,
  );

/** The compatibility date and flags of deploy/workerd/wrangler.toml, so tests run what deploys. */
export function wranglerCompat(): { compatibilityDate: string; compatibilityFlags: string[] } {
  const toml = readFileSync(join(ROOT, 'deploy/workerd/wrangler.toml'), 'utf8');
  const date = toml.match(/^compatibility_date\s*=\s*"([^"]+)"/m)?.[1];
  const flags = toml.match(/^compatibility_flags\s*=\s*\[([^\]]*)\]/m)?.[1];
  if (!date) throw new Error('wrangler.toml has no compatibility_date');
  return {
    compatibilityDate: date,
    compatibilityFlags: [...(flags ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
  };
}

let bundle: Promise<string> | undefined;
/** Builds deploy/workerd/worker.ts once per test process (esbuild; nothing is fetched). */
export function workerBundle(): Promise<string> {
  bundle ??= (async () => {
    const dir = (await tempDir('quire-worker-')).dir;
    await buildWorker(join(dir, 'worker.js'));
    return dir;
  })();
  return bundle;
}

/**
 * The Worker in workerd through Miniflare (local R2, KV and Durable Objects), persisted under
 * `persistDir` so a second instance over the same folder is a restart.
 */
export async function startWorkerd(
  opts: { persistDir?: string; vars?: Record<string, string> } = {},
): Promise<RunningRuntime & { mf: MiniflareInstance }> {
  const Miniflare = await loadMiniflare();
  const dir = await workerBundle();
  const own = opts.persistDir ? null : await tempDir('quire-workerd-');
  const persist = opts.persistDir ?? own!.dir;
  const mf = new Miniflare({
    modulesRoot: dir,
    modules: [{ type: 'ESModule', path: join(dir, 'worker.js') }],
    ...wranglerCompat(),
    r2Buckets: ['NOTES'],
    kvNamespaces: ['STATE'],
    durableObjects: { VAULT: 'QuireVault' },
    r2Persist: join(persist, 'r2'),
    kvPersist: join(persist, 'kv'),
    durableObjectsPersist: join(persist, 'do'),
    bindings: { LOG_LEVEL: 'warn', ...opts.vars },
    host: '127.0.0.1',
    port: 0,
  });
  const url = (await mf.ready).origin;
  return {
    runtime: 'workerd',
    url,
    mf,
    vaultDir: { none: 'no filesystem watcher on workerd: notes live in R2 and change only through the API' },
    clientUi: 'the Worker does not serve the client UI: host client-link/dist as static assets',
    embeddedRelay: 'no embedded relay on Workers: a Worker cannot hold the relay connection open',
    async stop() {
      await mf.dispose();
      await own?.cleanup();
    },
  };
}

/** A server the cross-runtime test started over a folder it keeps: restart it on the same one. */
export interface KeptServer {
  url: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

/** The command `npm run start:worker` runs, read from package.json so the test runs the same. */
export function startWorkerCommand(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = pkg.scripts['start:worker'] ?? '';
  const words = script.replace(/^exec /, '').split(/\s+/);
  if (words[0] !== 'node') throw new Error(`start:worker is not a node command: ${script}`);
  return words.slice(1);
}

/** The process groups of running `start:worker`s: killed if the test process ends first. */
const groups = new Set<number>();
process.once('exit', () => {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
});

/**
 * The Worker as the README starts it, `npm run start:worker` (wrangler dev --local, pinned in the
 * on-demand group), on a free port, with its data under `dataDir`; resolves once health answers.
 */
export async function startWorkerDev(dataDir: string, env: Record<string, string>): Promise<KeptServer> {
  await ensureRuntimes();
  // Its own process group, so the stop reaches wrangler's workerd too.
  const child = spawn(process.execPath, startWorkerCommand(), {
    cwd: ROOT,
    env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: '0', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  groups.add(child.pid!);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const gone = await Promise.race([exited.then(() => true), sleepFor(15_000).then(() => false)]);
    // wrangler stops workerd on SIGTERM; the group kill is for a stop that hung.
    try {
      process.kill(-child.pid!, gone ? 'SIGTERM' : 'SIGKILL');
    } catch {}
    await exited;
    groups.delete(child.pid!);
  };
  try {
    const url = await until(
      'wrangler dev to print its address',
      () => {
        if (child.exitCode !== null) throw new Error(`start:worker exited ${child.exitCode}:\n${out}`);
        return stripAnsi(out).match(/Ready on (http:\/\/[\d.]+:\d+)/)?.[1] ?? '';
      },
      90_000,
      50,
    );
    await until('the Worker to answer health', () => healthy(url), 60_000, 100);
    return { url, output: () => out, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The Node server (`npm start`'s root) over `dataDir`; resolves once it has indexed. */
export async function startNodeAt(dataDir: string, env: Record<string, string>): Promise<KeptServer> {
  const p = runTs('deploy/node/main.ts', {
    ...env,
    DATA_DIR: dataDir,
    VAULT_DIR: join(dataDir, 'notes'),
    NO_COLOR: '1',
  });
  try {
    const url = (await p.waitForLog((l) => l.msg === 'listening', 60_000)).url as string;
    await p.waitForLog((l) => l.msg === 'index ready', 60_000);
    return {
      url,
      output: () => p.out.stdout + p.out.stderr,
      async stop() {
        const code = await p.stop();
        if (code !== 0) throw new Error(`node did not stop cleanly (${code}):\n${p.out.stderr}`);
      },
    };
  } catch (err) {
    await p.kill();
    throw err;
  }
}

const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
const sleepFor = (ms: number) => new Promise((r) => setTimeout(r, ms));
const healthy = (url: string) =>
  fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(10_000) })
    .then(async (r) => ((await r.json()) as { data?: { status?: string } }).data?.status === 'ok')
    .catch(() => false);
