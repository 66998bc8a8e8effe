/** What every CLI command shares: exit codes, usage errors, option parsing, the server's address. */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isOperatorError, nodeHost, type Service, untilStopped } from '../../shared/process.ts';

/** Exit codes scripts can trust (docs/reference/cli.md). */
export const EXIT = { ok: 0, problem: 1, usage: 2 } as const;

/** A wrong command line: printed with the command's help hint, exit 2. */
export class UsageError extends Error {}

/** A problem the operator must fix: one line (or a few), exit 1. */
export class CliProblem extends Error {}

/** A failed start of `serve` or `relay`: the operator's problems as one line, anything else thrown. */
function startProblem(err: unknown): never {
  if (isOperatorError(err)) throw new CliProblem(err.message);
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
    throw new CliProblem(
      `${(err as Error).message}: another process uses the port (quire doctor tells more).`,
    );
  throw err;
}

/** Where a command writes; tests and the real process both pass these. */
export interface Io {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal (the progress bar redraws in place). */
  tty: boolean;
}

/** A command: its help text and what it runs (resolving to the exit code). */
export interface Command {
  help: string;
  run(args: string[], io: Io): Promise<number>;
}

/** Parses `args` strictly; unknown options and missing values are usage errors. */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

/** A flag of `quire serve` or `quire relay`: a string flag's variable, or a switch's variable and value. */
export type FlagVariable = string | readonly [variable: string, value: string];

/**
 * `quire serve` and `quire relay`: each flag given sets its variable on a copy of the environment,
 * then the service runs until a stop signal (`untilStopped`); a failed start is `startProblem`.
 */
export function serviceCommand(
  help: string,
  flags: Record<string, FlagVariable>,
  start: (env: NodeJS.ProcessEnv) => Promise<Service>,
): Command {
  const options = Object.fromEntries(
    Object.entries(flags).map(([flag, to]) => [
      flag,
      { type: typeof to === 'string' ? ('string' as const) : ('boolean' as const) },
    ]),
  );
  return {
    help,
    async run(args, io) {
      const { values } = parse(args, options);
      if (values.help) {
        io.out(`${help}\n`);
        return EXIT.ok;
      }
      const env = { ...io.env };
      for (const [flag, to] of Object.entries(flags)) {
        const value = values[flag];
        if (typeof to !== 'string') {
          if (value === true) env[to[0]] = to[1];
        } else if (typeof value === 'string') env[to] = value;
      }
      return untilStopped(nodeHost(io.env), () => start(env)).catch(startProblem);
    },
  };
}

/** The server's URL: `--url`, QUIRE_URL, or HOST:PORT from the environment (loopback for 0.0.0.0). */
export function serverUrlFrom(env: NodeJS.ProcessEnv, flag?: string): string {
  const given = flag ?? env.QUIRE_URL?.trim();
  if (given) {
    try {
      const u = new URL(given);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
    } catch {
      throw new UsageError(`--url / QUIRE_URL must be an http(s) URL, got "${given}".`);
    }
  }
  const host = env.HOST?.trim() || '127.0.0.1';
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${env.PORT?.trim() || '3000'}`;
}

/** A fetch that gives up after `ms`. */
export function fetchWithin(ms: number): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(ms) });
}

/** Replaces the value of `apiKey=` in a link (open-port links carry the key until setup is complete). */
export function redactLink(link: string): string {
  try {
    const u = new URL(link);
    if (u.searchParams.has('apiKey')) u.searchParams.set('apiKey', '<hidden: --show-key>');
    return u.toString();
  } catch {
    return link;
  }
}

/**
 * The end of the help of a command that asks the running server with the owner's key: its
 * options (`extra`: more option lines) and exit codes.
 */
export const serverCommandHelp = (extra = ''): string => `Options:
  --url <url>     The server (default QUIRE_URL, else http://HOST:PORT from the environment)
${extra}  --json          JSON output
  -h, --help      This help

Exit 0 on success, 1 when the server refuses or cannot be reached, 2 on a usage error.`;
