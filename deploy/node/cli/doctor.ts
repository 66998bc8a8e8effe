import { ConfigError, loadConfig, type ServerConfig } from '../../shared/config/server.ts';
import { type Command, EXIT, parse } from './common.ts';
import {
  type Check,
  checkClient,
  checkDir,
  checkPort,
  checkRelay,
  checkRelayConfigAndRedis,
  checkState,
} from './doctor-checks.ts';

/** Every check, in the order an operator would fix them. */
export async function runChecks(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push(
    major >= 20
      ? { status: 'ok', name: 'node', detail: `Node ${process.versions.node}` }
      : {
          status: 'fail',
          name: 'node',
          detail: `Node ${process.versions.node} is too old`,
          fix: 'install Node 20 or newer',
        },
  );
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
      fix: 'fix the variable named above (docs/configuration.md lists them all)',
    });
  }
  if (config) {
    checks.push(await checkDir('data dir', 'DATA_DIR', config.dataDir));
    checks.push(...checkState(config.dataDir));
    checks.push(await checkDir('vault', 'VAULT_DIR', config.vaultDir));
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
(docs/configuration.md); DATA_DIR and VAULT_DIR (they exist or can be created, are readable and
writable); the state files (private, credentials.json intact); PORT (free, or a Quire server
already answers); the relay (RELAY_URL answers, or RELAY_PORT is free for the embedded one);
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
