/** `quire`: the command line of the note server (bin/quire.js runs this). */
import { existsSync, readFileSync } from 'node:fs';
import { CliProblem, type Command, EXIT, type Io, UsageError } from './common.ts';

/** Every command, in the order a newcomer meets them; loaded only when run (help stays fast). */
export const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: {
    summary: 'Run the note server (with the embedded relay unless --no-relay or --relay-url)',
    load: async () => (await import('./serve.ts')).serve,
  },
  relay: {
    summary: 'Run the relay alone (for servers with no open port; scale out with REDIS_URL)',
    load: async () => (await import('./relay.ts')).relay,
  },
  setup: {
    summary: 'Print the setup links of a running server (the key only with --show-key)',
    load: async () => (await import('./setup.ts')).setup,
  },
  keys: { summary: 'List, mint and revoke API keys', load: async () => (await import('./keys.ts')).keys },
  people: {
    summary: 'Add people, share folders with them, print their invite links; disable or remove them',
    load: async () => (await import('./people.ts')).people,
  },
  publish: {
    summary: 'Publish a note or a folder read-only at a link (expiry, password); list and revoke',
    load: async () => (await import('./publish.ts')).publish,
  },
  index: {
    summary: 'Rebuild the index cache of the vault, with a progress bar (notes/s, ETA)',
    load: async () => (await import('./index-cmd.ts')).index,
  },
  mcp: {
    summary: 'Speak MCP over stdio and forward to a server or relay URL (for Claude Desktop and others)',
    load: async () => (await import('./mcp.ts')).mcp,
  },
  doctor: {
    summary: 'Check config, folders and permissions, ports, the relay and Redis; say what to fix',
    load: async () => (await import('./doctor.ts')).doctor,
  },
};

/** The version in package.json: three levels up from the sources, two from the release bundle. */
const version = (): string => {
  const at = ['../../../package.json', '../../package.json'].map((p) => new URL(p, import.meta.url));
  const file = at.find((u) => existsSync(u)) ?? at[0]!;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
};

/** The top-level help. */
export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return `Usage: quire <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

quire <command> --help tells more. Configuration comes from environment variables
(docs/reference/configuration.md); options override them.

Exit codes: 0 ok, 1 a problem was found or the command failed, 2 a usage error.`;
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...args] = argv;
  if (!name) {
    io.err(`${mainHelp()}\n`);
    return EXIT.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(`${mainHelp()}\n`);
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(`${version()}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.err(
      `quire: unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(', ')} (quire --help).\n`,
    );
    return EXIT.usage;
  }
  try {
    const command = await entry.load();
    return await command.run(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`quire ${name}: ${err.message}\nSee quire ${name} --help.\n`);
      return EXIT.usage;
    }
    if (err instanceof CliProblem) {
      io.err(`quire ${name}: ${err.message}\n`);
      return EXIT.problem;
    }
    io.err(`quire ${name}: ${err instanceof Error ? err.stack : String(err)}\n`);
    return EXIT.problem;
  }
}

/** Runs `process.argv` with the real process's streams; resolves to the exit code. */
export async function runCli(): Promise<number> {
  const name = process.argv[2];
  const code = await main(process.argv.slice(2), {
    env: process.env,
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    tty: process.stderr.isTTY === true,
  });
  // One-shot commands (and `mcp` once stdin ended) end here even if a library left a socket open;
  // serve and relay have stopped.
  if (name !== 'serve' && name !== 'relay') setTimeout(() => process.exit(code), 2_000).unref();
  return code;
}
