/**
 * The restart of "every answer true", many times: a vault of 6 notes (5 made through the API, one
 * written on disk while the server ran, one deleted through the API), then N starts of the bundled
 * server (`dist/server/main.js`, `npm run build:server` first) over it, each stopped with SIGTERM.
 * Every third start finds a note added on disk while it was down, the next one that note removed.
 * Each start is polled from its spawn (health and `GET /api/v1/notes`, gzip as a browser asks) until
 * the first 200 list, which must be exactly the vault's notes on disk; health must never say `idle`,
 * nor `ready` with 0 of 0 while the vault has notes. Prints the count of exact first lists.
 *
 * Usage: npx tsx bench/restart-truth.mts <tries> [treeDir]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const tries = Number(process.argv[2] ?? 200);
const tree = resolve(process.argv[3] ?? '.');
const root = mkdtempSync(join(tmpdir(), 'quire-restart-truth-'));
const vault = join(root, 'vault');
const data = join(root, 'data');
mkdirSync(vault, { recursive: true });

const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => ok(p));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const onDisk = () =>
  (readdirSync(vault, { recursive: true }) as string[])
    .filter((n) => n.endsWith('.md') && !n.split('/').some((p) => p.startsWith('.')))
    .sort();

async function start() {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, [join(tree, 'dist/server/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: data,
      VAULT_DIR: vault,
      PAIRING_MODE: 'open-port',
      SERVICE_AUTH_MODE: 'none',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-2000);
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    proc.kill('SIGTERM');
    return exited;
  };
  return { proc, url, t0, stop, stderr: () => stderr };
}

/** Polls from the spawn until the first 200 list: its paths, the health states seen, the time. */
async function firstList(s: Awaited<ReturnType<typeof start>>) {
  const states = new Set<string>();
  for (;;) {
    if (s.proc.exitCode !== null) throw new Error(`server exited: ${s.stderr()}`);
    try {
      const h = (await (await fetch(`${s.url}/api/v1/health`)).json()) as any;
      states.add(`${h.data.index.state}:${h.data.index.done}/${h.data.index.total}`);
      const res = await fetch(`${s.url}/api/v1/notes`, { headers: { 'accept-encoding': 'gzip' } });
      if (res.status === 200) {
        const list = ((await res.json()) as { data: { path: string }[] }).data.map((n) => n.path).sort();
        return { list, states: [...states], ms: performance.now() - s.t0 };
      }
      if (res.status !== 503 || !res.headers.get('retry-after'))
        throw new Error(`list answered ${res.status}`);
      await res.arrayBuffer();
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('list answered')) throw err;
    }
    await sleep(2);
  }
}

// The vault: 5 notes through the API, one on disk while running, one deleted through the API.
{
  const s = await start();
  const api = (path: string, init?: RequestInit) => fetch(`${s.url}/api/v1${path}`, init);
  await firstList(s);
  for (const n of ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon']) {
    const res = await api('/notes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: `${n}.md`, content: `# ${n}\n\nsee [[Alpha]] #tag${n.length}\n` }),
    });
    if (res.status !== 201) throw new Error(`create ${n}: ${res.status}`);
  }
  writeFileSync(join(vault, 'Broken.md'), '---\ntitle: [unclosed\n---\nbroken frontmatter [[Beta]]\n');
  for (;;) {
    const list = (await (await api('/notes')).json()) as { data: { path: string }[] };
    if (list.data.some((n) => n.path === 'Broken.md')) break;
    await sleep(20);
  }
  if ((await api('/notes/Gamma.md', { method: 'DELETE' })).status !== 200) throw new Error('delete');
  if ((await s.stop()) !== 0) throw new Error('first stop');
}

let exact = 0;
const wrong: string[] = [];
const times: number[] = [];
for (let i = 0; i < tries; i++) {
  if (i % 3 === 1) writeFileSync(join(vault, `Down${i}.md`), `# made while down ${i}\n`);
  if (i % 3 === 2) rmSync(join(vault, `Down${i - 1}.md`));
  const expected = onDisk();
  const s = await start();
  try {
    const { list, states, ms } = await firstList(s);
    times.push(ms);
    const badHealth = states.filter((x) => x.startsWith('idle') || x === 'ready:0/0');
    if (JSON.stringify(list) === JSON.stringify(expected) && !badHealth.length) exact++;
    else
      wrong.push(
        `start ${i}: listed ${list.join(',')} vault ${expected.join(',')} health ${states.join(' ')}`,
      );
  } finally {
    const code = await s.stop();
    if (code !== 0) wrong.push(`start ${i}: exit ${code}`);
  }
  if ((i + 1) % 20 === 0) process.stderr.write(`${i + 1} starts, ${exact} exact\n`);
}
times.sort((a, b) => a - b);
console.log(
  `${exact} of ${tries} starts listed exactly the vault from the first 200 (health never idle nor ready 0/0); spawn to first list median ${times[times.length >> 1]?.toFixed(0)} ms`,
);
for (const w of wrong.slice(0, 20)) console.log(w);
rmSync(root, { recursive: true, force: true });
process.exit(exact === tries ? 0 : 1);
