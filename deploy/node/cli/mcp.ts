/**
 * `quire mcp`: a stdio MCP server that forwards every message to a Quire server's `/mcp`,
 * for clients that only start local processes (Claude Desktop, and others in docs/guide/mcp.md). A plain
 * pump: JSON-RPC from stdin goes to the remote over Streamable HTTP, its answers come back on
 * stdout unchanged; stdout carries nothing else. Problems go to stderr, never the key.
 */
import process from 'node:process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { type Command, EXIT, parse, UsageError } from './common.ts';

/** `<url>/mcp` from a server base, a relay base (`.../r/<serverId>`) or the `/mcp` URL itself. */
export function mcpUrlFrom(given: string | undefined): URL {
  if (!given) throw new UsageError('pass --url <server or relay URL> (or set QUIRE_URL).');
  let u: URL;
  try {
    u = new URL(given);
  } catch {
    throw new UsageError(`--url must be an http(s) URL, got "${given}".`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UsageError(`--url must be an http(s) URL, got "${given}".`);
  }
  if (u.username || u.password)
    throw new UsageError('--url must not carry credentials; pass the key with --key or QUIRE_API_KEY.');
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/mcp') ? path : `${path}/mcp`;
  u.search = '';
  u.hash = '';
  return u;
}

/** Removes every occurrence of `secret` from a message that may quote a request. */
const scrub = (text: string, secret: string) => (secret ? text.split(secret).join('<key>') : text);

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } =>
  'method' in m && 'id' in m && m.id !== undefined;

/** Runs the bridge until stdin ends; resolves to the exit code. */
export async function runBridge(opts: {
  url: URL;
  key: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  err: (line: string) => void;
}): Promise<number> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const stdin = opts.stdin ?? process.stdin;
  const local: Transport = new StdioServerTransport(
    stdin as typeof process.stdin,
    (opts.stdout ?? process.stdout) as typeof process.stdout,
  );
  const remote: Transport = new StreamableHTTPClientTransport(opts.url, {
    requestInit: { headers: { authorization: `Bearer ${opts.key}` } },
  });
  const say = (msg: string) => opts.err(`quire mcp: ${scrub(msg, opts.key)}\n`);

  remote.onmessage = (m) => void local.send(m).catch(() => {});
  remote.onerror = (e) => say(`${opts.url.origin}: ${e.message}`);
  local.onerror = (e) => say(`stdin: ${e.message}`);
  local.onmessage = (m) => {
    // A request the remote could not answer gets a JSON-RPC error, so the client is not left waiting.
    remote.send(m).catch((e: Error & { code?: number }) => {
      const status = typeof e.code === 'number' && e.code >= 400 ? ` (HTTP ${e.code})` : '';
      const why = scrub(e.message, opts.key);
      say(`${opts.url.toString()}${status}: ${why}`);
      if (isRequest(m)) {
        void local
          .send({
            jsonrpc: '2.0',
            id: m.id,
            error: {
              code: -32000,
              message: `The Quire server at ${opts.url.toString()} did not answer${status}: ${why}`,
            },
          })
          .catch(() => {});
      }
    });
  };
  await remote.start();
  await local.start();
  await new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await local.close().catch(() => {});
  await remote.close().catch(() => {});
  return EXIT.ok;
}

/** `quire mcp`: the stdio bridge. */
export const mcp: Command = {
  help: `Usage: quire mcp --url <server or relay URL> [--key <key>]

Speaks MCP over stdin/stdout and forwards every message to the server's /mcp (Streamable HTTP),
for MCP clients that only start local processes (Claude Desktop, Claude Code, Cursor, VS Code:
docs/guide/mcp.md has a config block for each). Nothing but MCP is written to stdout; problems go to
stderr, without the key.

Options:
  --url <url>     The server (http://127.0.0.1:3000), its relay address (https://relay/r/<id>)
                  or the /mcp URL itself (default QUIRE_URL)
  --key <key>     The API key (or an OAuth access token); prefer QUIRE_API_KEY in the environment,
                  which other users of this machine cannot read from the process list
  -h, --help      This help

Exit 0 when stdin ends, 2 on a usage error.`,
  async run(args, io) {
    const { values } = parse(args, { url: { type: 'string' }, key: { type: 'string' } });
    if (values.help) {
      io.out(`${this.help}\n`);
      return EXIT.ok;
    }
    const url = mcpUrlFrom(values.url ?? io.env.QUIRE_URL?.trim());
    const key = values.key ?? io.env.QUIRE_API_KEY?.trim() ?? '';
    if (!key) throw new UsageError('pass the key in QUIRE_API_KEY (or --key).');
    return runBridge({ url, key, err: io.err });
  },
};
