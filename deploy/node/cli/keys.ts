import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { fsStateStore } from '../../../adapters/store/fs-state-store.ts';
import {
  CAPABILITIES,
  type Capability,
  type KeyScope,
  KeyScopeSchema,
  READ_ONLY,
} from '../../../core/auth/scope.ts';
import { createAuthService, type KeyInfo } from '../../../core/auth/service.ts';
import { AuthStateError } from '../../../core/auth/state.ts';
import { createQuireClient } from '../../../sdk/index.ts';
import { ConfigError, loadConfig } from '../../shared/config/server.ts';
import {
  CliProblem,
  type Command,
  EXIT,
  fetchWithin,
  parse,
  serverCommandHelp,
  serverUrlFrom,
  UsageError,
} from './common.ts';
import { unreachable } from './setup.ts';

/** The scope the mint options ask for; undefined (full access) when none is given. */
export function scopeFromOptions(o: {
  'read-only'?: boolean;
  cap?: string[];
  folder?: string[];
  exclude?: string[];
}): KeyScope | undefined {
  const caps = new Set<string>(o['read-only'] ? READ_ONLY : []);
  for (const c of o.cap ?? []) {
    for (const one of c
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)) {
      if (!(CAPABILITIES as readonly string[]).includes(one))
        throw new UsageError(`Unknown capability "${one}"; use ${CAPABILITIES.join(', ')}.`);
      caps.add(one);
    }
  }
  const folders = o.folder ?? [];
  const exclude = o.exclude ?? [];
  if (caps.size === 0 && folders.length === 0 && exclude.length === 0) return undefined;
  // Folders alone keep every capability, limited to those folders.
  const raw = {
    capabilities: caps.size > 0 ? [...caps] : [...CAPABILITIES],
    ...(folders.length ? { folders } : {}),
    ...(exclude.length ? { exclude } : {}),
  };
  const r = v.safeParse(KeyScopeSchema, raw);
  if (!r.success) throw new UsageError(`Bad scope: ${r.issues[0].message}`);
  return r.output as KeyScope & { capabilities: Capability[] };
}

/** One line describing a key's scope. */
function scopeText(s: KeyScope | null): string {
  if (!s) return 'full access';
  const parts = [s.capabilities.join(',')];
  if (s.folders?.length) parts.push(`folders ${s.folders.join(',')}`);
  if (s.exclude?.length) parts.push(`except ${s.exclude.join(',')}`);
  return parts.join('; ');
}

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
    list: async (): Promise<KeyInfo[]> => service.listKeys(),
    mint: (name: string, scope?: KeyScope) => service.mintKey(name, scope),
    revoke: (id: string) => service.revokeKey(id),
  };
}

/** `quire keys list | mint <name> | revoke <id>`. */
export const keys: Command = {
  help: `Usage: quire keys list|mint <name>|revoke <id> [options]

  list            Every key: id, name, redacted prefix, created, last used (never a secret)
  mint <name>     A new device key; printed once, store it now. Limit it with:
                    --read-only        notes:read and files:read only
                    --cap <c>          a capability (repeat, or comma-separated): notes:read,
                                       notes:write, files:read, files:write, agent, admin
                    --folder <p>       only under this folder, e.g. Work/ (repeat for more)
                    --exclude <p>      never under this folder, e.g. Work/private/ (repeat)
                    --name <name>      the name, instead of the positional one
                  Without these the key has full access, as before scopes.
  revoke <id>     Revoke a key (the first key too, once you have another)

By default the running server is asked (POST/GET/DELETE /api/v1/auth/keys) with the key in the
QUIRE_API_KEY environment variable. With --offline, DATA_DIR is changed directly; the server must
be stopped (it keeps its keys in memory), and the command refuses while one answers.

${serverCommandHelp('  --offline       Work on DATA_DIR/credentials.json instead (server stopped)\n')}`,
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        url: { type: 'string' },
        offline: { type: 'boolean' },
        json: { type: 'boolean' },
        'read-only': { type: 'boolean' },
        cap: { type: 'string', multiple: true },
        folder: { type: 'string', multiple: true },
        exclude: { type: 'string', multiple: true },
        name: { type: 'string' },
      },
      true,
    );
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const [action, ...rest] = positionals;
    const named = action === 'mint' && values.name !== undefined;
    if (named && rest.length > 0) throw new UsageError('Give the name once: positional or --name.');
    const [arg, ...extra] = named ? [values.name, ...rest] : rest;
    const scoped = ['read-only', 'cap', 'folder', 'exclude', 'name'].some(
      (k) => values[k as keyof typeof values] !== undefined,
    );
    if (scoped && action !== 'mint')
      throw new UsageError('--read-only, --cap, --folder, --exclude and --name go with quire keys mint.');
    const scope = action === 'mint' ? scopeFromOptions(values) : undefined;
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
        mint: (name, scope) => wrap(api.auth.mintKey(name, scope)),
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
            `${k.id}  ${k.name.padEnd(20)}  ${k.prefix.padEnd(16)}  ${k.kind.padEnd(6)}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}  ${scopeText(k.scope ?? null)}`,
        );
        print(rows, rows.length ? table.join('\n') : 'No keys.');
      } else if (action === 'mint') {
        const k = await backend.mint(arg!, scope);
        print(
          k,
          `Minted "${k.name}" (id ${k.id}, ${scopeText(k.scope ?? null)}). The key, shown this once:\n${k.apiKey}`,
        );
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
