import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fsStateStore } from '../../../adapters/store/fs-state-store.ts';
import { createAuthService } from '../../../core/auth/service.ts';
import { AuthStateError } from '../../../core/auth/state.ts';
import { createQuireClient } from '../../../sdk/index.ts';
import { ConfigError, loadConfig } from '../../shared/config/server.ts';
import { CliProblem, type Command, EXIT, fetchWithin, parse, serverUrlFrom, UsageError } from './common.ts';
import { unreachable } from './setup.ts';

type KeyRow = {
  id: string;
  name: string;
  kind: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
};

/** The keys of DATA_DIR itself, for a stopped server (a running one keeps its own copy in memory). */
async function offlineKeys(env: NodeJS.ProcessEnv, url: string) {
  let dataDir: string;
  try {
    dataDir = loadConfig(env).dataDir;
  } catch (err) {
    if (err instanceof ConfigError) throw new CliProblem(err.message);
    throw err;
  }
  if (!existsSync(join(dataDir, 'credentials.json')))
    throw new CliProblem(
      `No credentials in ${dataDir} yet: start the server once (quire serve), or check DATA_DIR.`,
    );
  const running = await fetchWithin(1_000)(`${url}/api/v1/health`).then(
    () => true,
    () => false,
  );
  if (running)
    throw new CliProblem(
      `A server answers at ${url}: stop it before --offline (or drop --offline and set QUIRE_API_KEY).`,
    );
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const service = createAuthService({
    state: fsStateStore({ dir: dataDir }),
    clock: { now: Date.now },
    logger: silent,
  });
  try {
    await service.init();
  } catch (err) {
    if (err instanceof AuthStateError) throw new CliProblem(err.message);
    throw err;
  }
  return {
    list: async (): Promise<KeyRow[]> => service.listKeys(),
    mint: (name: string) => service.mintKey(name),
    revoke: (id: string) => service.revokeKey(id),
  };
}

/** `quire keys list | mint <name> | revoke <id>`. */
export const keys: Command = {
  help: `Usage: quire keys list|mint <name>|revoke <id> [options]

  list            Every key: id, name, redacted prefix, created, last used (never a secret)
  mint <name>     A new device key; printed once, store it now
  revoke <id>     Revoke a key (the first key too, once you have another)

By default the running server is asked (POST/GET/DELETE /api/v1/auth/keys) with the key in the
QUIRE_API_KEY environment variable. With --offline, DATA_DIR is changed directly; the server must
be stopped (it keeps its keys in memory), and the command refuses while one answers.

Options:
  --url <url>     The server (default QUIRE_URL, else http://HOST:PORT from the environment)
  --offline       Work on DATA_DIR/credentials.json instead (server stopped)
  --json          JSON output
  -h, --help      This help

Exit 0 on success, 1 when the server refuses or cannot be reached, 2 on a usage error.`,
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      { url: { type: 'string' }, offline: { type: 'boolean' }, json: { type: 'boolean' } },
      true,
    );
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const [action, arg, ...extra] = positionals;
    if (!action) throw new UsageError('Say what to do: quire keys list, mint <name> or revoke <id>.');
    if (!['list', 'mint', 'revoke'].includes(action))
      throw new UsageError(`Unknown keys action "${action}".`);
    if (action !== 'list' && !arg)
      throw new UsageError(`quire keys ${action} needs a ${action === 'mint' ? 'name' : 'key id'}.`);
    if (extra.length > 0 || (action === 'list' && arg)) throw new UsageError('Too many arguments.');

    const url = serverUrlFrom(io.env, values.url);
    let backend: Awaited<ReturnType<typeof offlineKeys>>;
    if (values.offline) backend = await offlineKeys(io.env, url);
    else {
      const apiKey = io.env.QUIRE_API_KEY?.trim();
      if (!apiKey)
        throw new UsageError(
          'Set QUIRE_API_KEY to a key of the server (or use --offline with the server stopped).',
        );
      const api = createQuireClient({ baseUrl: url, apiKey, fetch: fetchWithin(10_000) });
      const wrap = <T>(p: Promise<T>) => p.catch((err) => unreachable(url, err));
      backend = {
        list: () => wrap(api.auth.listKeys()),
        mint: (name) => wrap(api.auth.mintKey(name)),
        revoke: (id) => wrap(api.auth.revokeKey(id)),
      };
    }
    const print = (data: unknown, text: string) =>
      io.out(values.json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
    try {
      if (action === 'list') {
        const rows = await backend.list();
        const table = rows.map(
          (k) =>
            `${k.id}  ${k.name.padEnd(20)}  ${k.prefix.padEnd(16)}  ${k.kind.padEnd(6)}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}`,
        );
        print(rows, rows.length ? table.join('\n') : 'No keys.');
      } else if (action === 'mint') {
        const k = await backend.mint(arg!);
        print(k, `Minted "${k.name}" (id ${k.id}). The key, shown this once:\n${k.apiKey}`);
      } else {
        print(await backend.revoke(arg!), `Revoked ${arg}.`);
      }
    } catch (err) {
      if (err instanceof CliProblem || err instanceof UsageError) throw err;
      if (err instanceof Error && 'code' in err && typeof (err as { code: unknown }).code === 'string')
        throw new CliProblem(err.message);
      throw err;
    }
    return EXIT.ok;
  },
};
