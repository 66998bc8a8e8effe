/**
 * Live editing (core/live) on loopback: keystroke propagation between two editors, between N
 * editors of one note, and the server's memory per open live document; then the same two-editor
 * propagation through the relay (live over requests, client-link/src/flow/live-poll.ts): both
 * editors on one relay node, and one on each of two nodes sharing one Redis (the server's tunnel
 * on the second), the direct figure of the same run beside them.
 *
 *   npx tsx bench/live.ts [--keys 400] [--editors 20] [--docs 1000] [--relay-keys 200]
 *
 * The server is a real `quire` process (deploy/node/main.ts); the editors are the workspace's
 * LiveClient over `ws` WebSockets in this process. A keystroke's propagation is the time from the
 * typing editor's insert to the moment another editor's document holds it (one Yjs update through
 * the server's room). Memory: RSS of the server process before and after opening `docs` notes live
 * (one editor each), after the editors' first write settled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { LiveClient } from '../client-link/src/flow/live-client.ts';
import { openLivePoll } from '../client-link/src/flow/live-poll.ts';

const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '400' },
    editors: { type: 'string', default: '20' },
    docs: { type: 'string', default: '1000' },
    'relay-keys': { type: 'string', default: '200' },
  },
});

const ROOT = new URL('..', import.meta.url).pathname;

/** Starts `entry` under tsx; resolves with its address once it logs `msg`. */
async function startProc(
  entry: string,
  env: Record<string, string>,
  msg: string,
): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (const line of buf.split('\n')) {
        if (line.includes(`"msg":"${msg}"`)) resolve(JSON.parse(line).url);
      }
      buf = buf.slice(buf.lastIndexOf('\n') + 1);
    });
    proc.once('exit', (code) => reject(new Error(`${entry} ended (${code})`)));
  });
  proc.stdout!.resume();
  return { url, proc };
}

const startServer = (dir: string, env: Record<string, string> = {}) =>
  startProc(
    'deploy/node/main.ts',
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'data'),
      PAIRING_MODE: 'open-port',
      RATE_LIMIT: '0',
      ...env,
    },
    'listening',
  );

/** The process's CPU time so far (user + system), ms, from /proc. */
const cpuMs = async (pid: number): Promise<number> => {
  const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
};

const rssKb = async (pid: number): Promise<number> =>
  Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]);

const until = async (check: () => boolean | Promise<boolean>, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
};

async function editor(
  url: string,
  key: string,
  path: string,
): Promise<{ client: LiveClient; ws: WebSocket }> {
  const t = (await (
    await fetch(`${url}/api/v1/live/tickets`, {
      method: 'POST',
      headers: { 'x-service-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ path }),
    })
  ).json()) as any;
  const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/live`, [
    'quire-live',
    `quire-live.ticket.${t.data.ticket}`,
  ]);
  const client = new LiveClient((d) => ws.readyState === ws.OPEN && ws.send(d));
  ws.on('message', (data, bin) => {
    const b = data as Buffer;
    client.receive(bin ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : b.toString());
  });
  await new Promise((r) => ws.once('open', r));
  client.start();
  await until(() => client.synced);
  return { client, ws };
}

/** An editor through the relay at `via` (`<relay>/r/<serverId>`): live over requests. */
async function relayedEditor(
  via: string,
  key: string,
  path: string,
): Promise<{ client: LiveClient; ws: { close(): void } }> {
  const t = (await (
    await fetch(`${via}/api/v1/live/tickets`, {
      method: 'POST',
      headers: { 'x-service-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ path }),
    })
  ).json()) as any;
  const s = await openLivePoll({ serverUrl: via, apiKey: key }, t.data.ticket, (name) => ({
    name,
    color: '#000',
  }));
  return { client: s.client, ws: s };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

/** `keys` keystrokes typed round robin by the editors; the time each takes to reach every other. */
async function propagation(eds: { client: LiveClient }[], keys: number): Promise<number[]> {
  const out: number[] = [];
  for (let k = 0; k < keys; k++) {
    const from = eds[k % eds.length]!.client;
    const mark = `k${k} `;
    const others = eds.filter((e) => e.client !== from);
    const seen = others.map(
      (o) =>
        new Promise<number>((resolve) => {
          const check = () => {
            if (o.client.text.toString().includes(mark)) {
              o.client.text.unobserve(check);
              resolve(performance.now());
            }
          };
          o.client.text.observe(check);
        }),
    );
    const t0 = performance.now();
    from.text.insert(0, mark);
    for (const t of await Promise.all(seen)) out.push(t - t0);
    // A person types about every 100 ms; a short gap keeps the server's writes in the picture.
    await new Promise((r) => setTimeout(r, 5));
  }
  return out;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'quire-bench-live-'));
  const docs = Number(values.docs);
  await mkdir(join(dir, 'data', 'notes', 'open'), { recursive: true });
  for (let i = 0; i < docs; i++)
    await writeFile(
      join(dir, 'data', 'notes', 'open', `n${i}.md`),
      `# Note ${i}\n\n${'Some text of a note. '.repeat(40)}\n`,
    );
  const { url, proc } = await startServer(dir);
  try {
    const key = ((await (await fetch(`${url}/api/v1/system/setup`)).json()) as any).data.apiKey as string;
    await until(
      async () => (await fetch(`${url}/api/v1/notes`, { headers: { 'x-service-key': key } })).status === 200,
    );
    await fetch(`${url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'x-service-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'bench.md', content: '# Bench\n' }),
    });
    console.log(
      `machine: ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );

    const two = [await editor(url, key, 'bench.md'), await editor(url, key, 'bench.md')];
    const p2 = await propagation(two, Number(values.keys));
    console.log(
      `two editors, ${p2.length} keystrokes: p50 ${ms(pct(p2, 50))}, p95 ${ms(pct(p2, 95))}, p99 ${ms(pct(p2, 99))}`,
    );
    for (const e of two) e.ws.close();

    const n = Number(values.editors);
    const many = [];
    for (let i = 0; i < n; i++) many.push(await editor(url, key, 'bench.md'));
    const typed = Math.max(100, Math.floor(Number(values.keys) / 2));
    const cpu0 = await cpuMs(proc.pid!);
    const pn = await propagation(many, typed);
    const cpu = (await cpuMs(proc.pid!)) - cpu0;
    console.log(
      `${n} editors, ${pn.length} deliveries: p50 ${ms(pct(pn, 50))}, p95 ${ms(pct(pn, 95))}, p99 ${ms(pct(pn, 99))}; server CPU ${cpu.toFixed(0)} ms, ${(cpu / typed).toFixed(2)} ms a keystroke sent to ${n - 1} editors`,
    );
    for (const e of many) e.ws.close();

    await new Promise((r) => setTimeout(r, 3000));
    const idle = await rssKb(proc.pid!);
    const open = [];
    for (let i = 0; i < docs; i++) open.push(await editor(url, key, `open/n${i}.md`));
    await new Promise((r) => setTimeout(r, 3000));
    const busy = await rssKb(proc.pid!);
    console.log(
      `${docs} notes open live (one editor each): server RSS ${(idle / 1024).toFixed(0)} MB → ${(busy / 1024).toFixed(0)} MB, +${((busy - idle) / 1024).toFixed(0)} MB, ${((busy - idle) / docs).toFixed(0)} KB a document`,
    );
    for (const e of open) e.ws.close();
  } finally {
    proc.kill('SIGKILL');
  }
  try {
    await throughRelay(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Two relay nodes (own processes) on the local Redis under a prefix of their own, a server whose
 * tunnel is on the second: two editors direct (the anchor), both through the second node, and one
 * through each node (every update crosses Redis).
 */
async function throughRelay(dir: string) {
  const relayEnv = {
    RELAY_HOST: '127.0.0.1',
    RELAY_PORT: '0',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    RELAY_REDIS_PREFIX: `quire:bench-live:${crypto.randomUUID()}:`,
    RELAY_QUEUE_KEY: 'bench-live-queue-key-0123456789abcdef0123',
  };
  const nodes = [
    await startProc('deploy/relay/main.ts', relayEnv, 'relay listening'),
    await startProc('deploy/relay/main.ts', relayEnv, 'relay listening'),
  ];
  const server = await startServer(join(dir, 'relayed'), { PAIRING_MODE: 'relay', RELAY_URL: nodes[1]!.url });
  try {
    const setup = ((await (await fetch(`${server.url}/api/v1/system/setup`)).json()) as any).data;
    const key = setup.apiKey as string;
    await until(async () => {
      const r = await fetch(`${server.url}/api/v1/system/info`, { headers: { 'x-service-key': key } });
      return ((await r.json()) as any).data?.relay?.state === 'online';
    });
    await fetch(`${server.url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'x-service-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'relayed.md', content: '# Relayed\n' }),
    });
    const via = (n: number) => `${nodes[n]!.url}/r/${setup.serverId}`;
    const keys = Number(values['relay-keys']);
    const runs: [string, () => Promise<{ client: LiveClient; ws: { close(): void } }[]>][] = [
      [
        'direct (WebSocket), anchor',
        async () => [
          await editor(server.url, key, 'relayed.md'),
          await editor(server.url, key, 'relayed.md'),
        ],
      ],
      [
        'through one relay node',
        async () => [
          await relayedEditor(via(1), key, 'relayed.md'),
          await relayedEditor(via(1), key, 'relayed.md'),
        ],
      ],
      [
        'through two relay nodes on one Redis',
        async () => [
          await relayedEditor(via(0), key, 'relayed.md'),
          await relayedEditor(via(1), key, 'relayed.md'),
        ],
      ],
    ];
    let anchor = 0;
    for (const [name, open] of runs) {
      const eds = await open();
      const p = await propagation(eds, keys);
      const p95 = pct(p, 95);
      if (!anchor) anchor = p95;
      console.log(
        `two editors ${name}, ${p.length} keystrokes: p50 ${ms(pct(p, 50))}, p95 ${ms(p95)}, p99 ${ms(pct(p, 99))}${anchor === p95 ? '' : ` (p95 ${(p95 / anchor).toFixed(1)}x direct)`}`,
      );
      for (const e of eds) e.ws.close();
    }
  } finally {
    server.proc.kill('SIGKILL');
    for (const n of nodes) n.proc.kill('SIGTERM');
    const redis = new Redis(relayEnv.REDIS_URL);
    const left = await redis.keys(`${relayEnv.RELAY_REDIS_PREFIX}*`);
    if (left.length) await redis.del(...left);
    redis.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
