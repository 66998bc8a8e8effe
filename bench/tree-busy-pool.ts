/**
 * Issue 31 fuzz finding: relayed `GET /r/<id>/api/v1/folders/tree/...` with no answer within
 * 10 s. The tree walked the vault (one file-system call per folder and file, in sequence) on
 * every request after any write; behind a busy libuv thread pool (the fuzz's writes syncing to
 * disk) each call waits its turn, so the walk took seconds while a note read (two calls) did not.
 * Here the pool is kept busy with pbkdf2 (16 tasks queued on its 4 threads) and the tree and a
 * note are read through the embedded relay, with an attachment written between reads.
 *
 * Run: npx tsx bench/tree-busy-pool.ts  (prints one JSON line: milliseconds per read)
 */
import { pbkdf2 } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../deploy/node/server.ts';
import { loadConfig } from '../deploy/shared/config/server.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const dir = await mkdtemp(join(tmpdir(), 'quire-tree-bench-'));
const config = loadConfig({
  PORT: '0',
  RELAY_PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: join(dir, 'data'),
});
const vault = config.vaultDir;
for (let i = 0; i < 25; i++) {
  await mkdir(join(vault, `d${i}`, 'x'), { recursive: true });
  await writeFile(join(vault, `d${i}`, 'x', 'f.png'), 'x');
}
await writeFile(join(vault, 'a.md'), '# A');
const server = await startServer(config, { logger: quiet });
await server.ready;
const setup = ((await (await fetch(`${server.url}/api/v1/system/setup`)).json()) as any).data;
const key = { 'x-service-key': setup.apiKey as string };
for (let i = 0; i < 300; i++) {
  const info = ((await (await fetch(`${server.url}/api/v1/system/info`, { headers: key })).json()) as any)
    .data;
  if (info.relay.state === 'online') break;
  await new Promise((r) => setTimeout(r, 50));
}
const relay = `${setup.pairing.relayUrl}/r/${setup.serverId}`;
const targets = ['/api/v1/folders/tree/d1', '/api/v1/notes/a.md', '/api/v1/folders/tree'];
const out: Record<string, number[]> = {};
async function round(label: string) {
  for (const t of targets) {
    const started = performance.now();
    const res = await fetch(`${relay}${t}`, { headers: key });
    await res.arrayBuffer();
    const name = `${label} ${t}`;
    out[name] = [...(out[name] ?? []), Math.round(performance.now() - started)];
    // A write between reads, as the fuzz's writes are.
    await fetch(`${server.url}/api/v1/files/up-${Math.random()}.png`, {
      method: 'PUT',
      headers: { ...key, 'content-type': 'image/png' },
      body: 'x',
    });
  }
}
await round('idle');
let stop = false;
const spin = () => {
  if (!stop) pbkdf2('x', 'y', 20_000, 32, 'sha256', spin);
};
for (let i = 0; i < 16; i++) spin();
await new Promise((r) => setTimeout(r, 500));
for (let i = 0; i < Number(process.env.ROUNDS ?? 3); i++) await round('busy');
stop = true;
console.log(JSON.stringify(out));
await server.stop();
await rm(dir, { recursive: true, force: true });
process.exit(0);
