/**
 * `npx tsx bench/mcp-connect.ts` (issue 29): what connecting an MCP client costs each way, on a
 * real server socket (deploy/node, open port, data in a temp dir), medians of BENCH_ROUNDS:
 *
 * - baseline: the SDK client over Streamable HTTP with a key (connect = initialize + initialized),
 *   then `tools/list`;
 * - `quire mcp` spawned by the SDK's stdio client (node bin/quire.js through tsx, as from a
 *   checkout), connect then `tools/list`: what Claude Desktop waits for;
 * - the OAuth flow with the SDK client: 401, discovery, registration, consent POST, token, connect,
 *   `tools/list`.
 *
 * Prints a markdown section for BENCHMARKS.md. Env: BENCH_ROUNDS (default 7).
 */

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT } from '../tests/helpers/child.ts';
import { liveServer } from '../tests/helpers/live-server.ts';
import { MemoryProvider, oauthConnect } from '../tests/helpers/oauth-client.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ARTIFACT = `${ROOT}dist/release/quire-server/bin/quire.js`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(fn: () => Promise<void>): Promise<number> {
  await fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return median(out);
}

const s = await liveServer({ PAIRING_MODE: 'open-port', RATE_LIMIT_AUTH_PER_MINUTE: '10000' });
try {
  const http = await timed(async () => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${s.firstKey}` } },
      }),
    );
    await client.listTools();
    await client.close();
  });
  const bridgeWith = (bin: string) =>
    timed(async () => {
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [bin, 'mcp', '--url', s.url],
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', QUIRE_API_KEY: s.firstKey },
          stderr: 'ignore',
        }),
      );
      await client.listTools();
      await client.close();
    });
  // The floor of any stdio bridge: a bare node process started and ended.
  const nodeFloor = await timed(async () => {
    execFileSync(process.execPath, ['-e', '0']);
  });
  const bridge = await bridgeWith('bin/quire.js');
  const artifact = existsSync(ARTIFACT) ? await bridgeWith(ARTIFACT) : null;
  const oauth = await timed(async () => {
    const { client } = await oauthConnect(`${s.url}/mcp`, s.firstKey, { provider: new MemoryProvider() });
    await client.listTools();
    await client.close();
  });
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const m = `${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, commit ${commit}, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`;
  const row = (name: string, x: number) => `| ${name} | ${x.toFixed(0)} | ${(x / http).toFixed(1)}x |`;
  console.log(`## MCP connect: key over HTTP, the stdio bridge, OAuth (issue 29), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC

Machine: ${m}. Command: \`BENCH_ROUNDS=${ROUNDS} npx tsx bench/mcp-connect.ts\`; medians of ${ROUNDS}
after a warm-up, the running server (deploy/node, open port) on loopback, baseline in the same run.

| client, connect + tools/list | median ms | vs baseline |
|---|---|---|
${row('SDK Streamable HTTP client with a key (baseline)', http)}
${row('`node -e 0` (the floor of any stdio process, not a client)', nodeFloor)}
${row('`quire mcp` spawned by the SDK stdio client (tsx from a checkout)', bridge)}
${artifact === null ? '| `quire mcp` from the release artifact | not built (npm run release) | |' : row('`quire mcp` from the release artifact (`node dist/release/quire-server/bin/quire.js mcp`)', artifact)}
${row('OAuth flow with the SDK client (401, discovery, registration, consent, token, connect)', oauth)}
`);
} finally {
  await s.stop();
}
