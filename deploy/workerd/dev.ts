/**
 * `npm run start:worker`: the Worker on this machine under `wrangler dev --local` (workerd with
 * local R2, KV and a Durable Object), with no Cloudflare account and nothing fetched beyond npm.
 * wrangler is pinned in the on-demand `runtimes` group (deploy/shared/on-demand), installed on
 * first use: its newest releases need Node 22.12, so a bare `npx wrangler` picks whatever the
 * running Node allows and, without a terminal, stops to ask before installing it.
 *
 * PORT (default 8787) and HOST (default 127.0.0.1) choose the address; the R2, KV and Durable
 * Object data live under `$DATA_DIR/workerd` (DATA_DIR default ./data), so a restart keeps them.
 * The server's variables set in the environment (LOG_LEVEL, SERVICE_AUTH_MODE, ...) reach the
 * Worker as `--var`, over wrangler.toml's `[vars]`; arguments after `--` go to wrangler.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_VARIABLES } from '../shared/config/variables.ts';
import { ensureRuntimes } from '../shared/runtime-binary.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Variables that choose where the Node server listens and keeps files: nothing to the Worker. */
const HOST_ONLY = new Set(['PORT', 'HOST', 'DATA_DIR', 'VAULT_DIR']);

/** The wrangler command line and environment for `env`; `extra` goes to wrangler as it is. */
export function wranglerDev(modules: string, env: NodeJS.ProcessEnv, extra: string[] = []) {
  const persist = join(resolve(ROOT, env.DATA_DIR ?? './data'), 'workerd');
  const vars = Object.keys(SERVER_VARIABLES)
    .filter((name) => !HOST_ONLY.has(name) && env[name] !== undefined)
    .flatMap((name) => ['--var', `${name}:${env[name]}`]);
  const args = [
    join(modules, 'wrangler/bin/wrangler.js'),
    'dev',
    '--config',
    join(ROOT, 'deploy/workerd/wrangler.toml'),
    '--local',
    '--ip',
    env.HOST ?? '127.0.0.1',
    '--port',
    env.PORT ?? '8787',
    '--persist-to',
    persist,
    '--show-interactive-dev-session=false',
    ...vars,
    ...extra,
  ];
  const wranglerEnv = {
    ...env,
    // Local only: no request to Cloudflare for the `cf` object, no telemetry, no banner (its
    // update notice names releases that need a newer Node), wrangler's logs beside the data.
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    WRANGLER_LOG_PATH: join(persist, 'logs'),
  };
  return { args, env: wranglerEnv, persist };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const modules = await ensureRuntimes();
  const extra = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
  const { args, env, persist } = wranglerDev(modules, process.env, extra);
  const { version } = (await import(join(modules, 'wrangler/package.json'), { with: { type: 'json' } }))
    .default as { version: string };
  console.error(`quire: the Worker under wrangler ${version} (local), data in ${persist}`);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], env, cwd: ROOT });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
