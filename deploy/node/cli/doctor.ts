import { ConfigError, loadConfig, type ServerConfig } from '../../shared/config/server.ts';
import { type Command, EXIT, parse } from './common.ts';
import {
  type Check,
  checkClient,
  checkDir,
  checkHistory,
  checkPort,
  checkRelay,
  checkRelayConfigAndRedis,
  checkState,
} from './doctor-checks.ts';

/** The oldest Node Quire supports: package.json "engines" (the newest minimum among its dependencies'). */
export const MIN_NODE = '20.19.0';
/** Node majors past their end of life (still supported by Quire, but no longer by Node's own security fixes). */
const END_OF_LIFE: Record<number, string> = { 20: 'April 2026' };

const parts = (v: string): number[] =>
  v
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10));

/** The Node version check: fail below the supported range (naming it); says when a major left maintenance. */
export function checkNode(version: string): Check {
  const have = parts(version);
  const need = parts(MIN_NODE);
  let cmp = 0;
  for (let i = 0; i < 3 && cmp === 0; i++) cmp = Math.sign((have[i] ?? 0) - (need[i] ?? 0));
  if (have.some((n) => Number.isNaN(n)) || cmp < 0)
    return {
      status: 'fail',
      name: 'node',
      detail: `Node ${version} is not supported (Quire needs Node >= ${MIN_NODE})`,
      fix: 'install Node 22 or 24 (LTS)',
    };
  const major = have[0]!;
  const eol = END_OF_LIFE[major];
  // Still ok (it is in the supported range), but said: the operator should plan the upgrade.
  const note = eol ? ` (supported; Node ${major} left maintenance in ${eol}: prefer Node 22 or 24)` : '';
  return { status: 'ok', name: 'node', detail: `Node ${version}${note}` };
}

/** Every check, in the order an operator would fix them. */
export async function runChecks(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push(checkNode(process.versions.node));
  let config: ServerConfig | null = null;
  try {
    config = loadConfig(env);
    checks.push({
      status: 'ok',
      name: 'config',
      detail: `valid: ${config.authMode} auth, ${config.pairingMode} pairing, agent ${config.agent.provider}, listening on ${config.host}:${config.port}`,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    checks.push({
      status: 'fail',
      name: 'config',
      detail: err.message,
      fix: 'fix the variable named above (docs/reference/configuration.md lists them all)',
    });
  }
  if (config) {
    checks.push(await checkDir('data dir', 'DATA_DIR', config.dataDir));
    checks.push(...checkState(config.dataDir));
    checks.push(await checkDir('vault', 'VAULT_DIR', config.vaultDir));
    checks.push(checkHistory(config));
    checks.push(await checkPort('port', 'PORT', config.host, config.port));
    checks.push(await checkRelay(config));
  }
  checks.push(...(await checkRelayConfigAndRedis(env)));
  checks.push(checkClient());
  return checks;
}

/** `quire doctor`. */
export const doctor: Command = {
  help: `Usage: quire doctor [options]

Checks, with the same environment the server would get: the Node version; every variable
(docs/reference/configuration.md); DATA_DIR and VAULT_DIR (they exist or can be created, are readable and
writable); the state files (private, credentials.json intact); the history and the trash
(bytes, versions, items, against HISTORY_MAX_BYTES); PORT (free, or a Quire server already
answers); the relay (RELAY_URL answers, or RELAY_PORT is free for the embedded one);
the relay's variables and Redis (PING) when REDIS_URL is set; the built client.
Each problem comes with what to do.

Options:
  --json        The checks as JSON
  -h, --help    This help

Exit 0 when nothing failed (warnings allowed), 1 when a check failed, 2 on a usage error.`,
  async run(args, io) {
    const { values } = parse(args, { json: { type: 'boolean' } });
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const checks = await runChecks(io.env);
    const failed = checks.filter((c) => c.status === 'fail').length;
    const warned = checks.filter((c) => c.status === 'warn').length;
    if (values.json) io.out(`${JSON.stringify({ ok: failed === 0, checks }, null, 2)}\n`);
    else {
      const width = Math.max(...checks.map((c) => c.name.length));
      const lines = checks.map((c) => {
        const head = `${c.status === 'ok' ? 'ok  ' : c.status === 'warn' ? 'warn' : 'FAIL'}  ${c.name.padEnd(width)}  ${c.detail}`;
        return c.fix ? `${head}\n      ${' '.repeat(width)}  fix: ${c.fix}` : head;
      });
      const summary = failed ? `${failed} problem${failed > 1 ? 's' : ''} to fix` : 'no problems';
      io.out(
        `${lines.join('\n')}\n\n${summary}${warned ? `, ${warned} warning${warned > 1 ? 's' : ''}` : ''}.\n`,
      );
    }
    return failed ? EXIT.problem : EXIT.ok;
  },
};
