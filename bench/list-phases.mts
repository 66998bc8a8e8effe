/**
 * Same-run A/B of the list's phases (bench/results/2026-11-27-list.md): each repository's built
 * server (`npm run build:server` in it first). Usage:
 * `VAULT=.bench-vaults/vault-10000-s42 npx tsx bench/list-phases.mts ROUNDS REPO_A REPO_B ...`
 * (data dirs in /tmp/listwork/ph-<i>, removed and made again each round).
 * Per round and repo: a cold start (fresh DATA_DIR) and a warm start (same DATA_DIR), each: wait for
 * the index (health index.state ready), then the server's CPU (all threads, eld-probe) and wall of
 * the first GET /notes gzip, its size, RSS after it; on the warm server also 8 writes, each followed
 * 300 ms later by a gzip list (CPU). SETTLE_MS (default 0) waits that long after the first warm list
 * before the writes (the start's background work: the check of the vault, the deferred chunks).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

const vault = process.env.VAULT!;
const rounds = Number(process.argv[2]);
const repos = process.argv.slice(3);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise<number>((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as any).port;
      s.close(() => res(p));
    });
  });
const raw = (
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
) =>
  new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
    const req = request(base + path, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, bytes: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end(body);
  });
const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
async function start(repo: string, data: string) {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(
    'taskset',
    ['-c', '0', process.execPath, '--import', `${repo}/bench/eld-probe.mjs`, `${repo}/dist/server/main.js`],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: data,
        VAULT_DIR: vault,
        PAIRING_MODE: 'open-port',
        SERVICE_AUTH_MODE: 'none',
        RATE_LIMIT: '0',
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  const ask = (type: string) =>
    new Promise<any>((resolve) => {
      const on = (m: any) => {
        if (m.type !== type) return;
        proc.off('message', on);
        resolve(m);
      };
      proc.on('message', on);
      proc.send({ type });
    });
  for (;;) {
    try {
      const r = await raw(base, '/api/v1/health');
      if (r.status === 200 && ((j) => (j.data ?? j).index?.state === 'ready')(JSON.parse(r.bytes.toString())))
        break;
    } catch {}
    await sleep(20);
  }
  const readyMs = performance.now() - t0;
  const cpu = async () => (await ask('cpu')).cpuUs as number;
  await sleep(200);
  const c0 = await cpu();
  const c1 = await cpu();
  const t = performance.now();
  const first = await raw(base, '/api/v1/notes', { 'accept-encoding': 'gzip' });
  const wall = performance.now() - t;
  const c2 = await cpu();
  if (first.status !== 200) throw new Error(`first list ${first.status}`);
  const pid = proc.pid!;
  return {
    proc,
    base,
    cpu,
    readyMs,
    firstCpuMs: (c2 - c1 - (c1 - c0)) / 1000,
    firstWallMs: wall,
    firstBytes: first.bytes.length,
    rssMB: rss(pid),
    stop: async () => {
      const e = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await e;
    },
  };
}
const paths: string[] = JSON.parse(readFileSync(`${vault}.json`, 'utf8')).paths;
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
type R = Record<string, number[]>;
const res: Record<string, R> = {};
const push = (repo: string, k: string, v: number) => {
  res[repo] ??= {};
  res[repo][k] ??= [];
  res[repo][k].push(v);
};
let rawBytes = 0;
for (let round = 0; round < rounds; round++) {
  for (const [i, repo] of repos.entries()) {
    const data = `/tmp/listwork/ph-${i}`;
    rmSync(data, { recursive: true, force: true });
    mkdirSync(data, { recursive: true });
    const cold = await start(repo, data);
    if (!rawBytes) rawBytes = (await raw(cold.base, '/api/v1/notes')).bytes.length;
    push(repo, 'cold first list CPU ms', cold.firstCpuMs);
    push(repo, 'cold first list wall ms', cold.firstWallMs);
    push(repo, 'cold first list share %', (100 * cold.firstBytes) / rawBytes);
    push(repo, 'cold RSS MB', cold.rssMB);
    await cold.stop();
    const warm = await start(repo, data);
    push(repo, 'warm ready ms', warm.readyMs);
    push(repo, 'warm first list CPU ms', warm.firstCpuMs);
    push(repo, 'warm first list wall ms', warm.firstWallMs);
    push(repo, 'warm first list share %', (100 * warm.firstBytes) / rawBytes);
    push(repo, 'warm RSS MB', warm.rssMB);
    // SETTLE_MS: let the start's background work (the vault check, what a whole answer deferred) end first.
    await sleep(Number(process.env.SETTLE_MS ?? 0));
    push(repo, 'warm RSS MB after the settle', rss(warm.proc.pid!));
    for (let k = 0; k < 8; k++) {
      const path = paths[((round * 8 + k) * 7919 + i) % paths.length]!;
      const np = `/api/v1/notes/${path.split('/').map(encodeURIComponent).join('/')}`;
      const put = await raw(
        warm.base,
        np,
        { 'content-type': 'application/json' },
        'PUT',
        JSON.stringify({ content: `# Edited ${round} ${k}\n\nA changed body.\n` }),
      );
      if (put.status !== 200) throw new Error(`put ${put.status}`);
      await sleep(300);
      const c0 = await warm.cpu();
      const c1 = await warm.cpu();
      await raw(warm.base, '/api/v1/notes', { 'accept-encoding': 'gzip' });
      const c2 = await warm.cpu();
      push(repo, 'after-write list CPU ms', (c2 - c1 - (c1 - c0)) / 1000);
    }
    await warm.stop();
    console.error(`round ${round} ${repo} done`);
  }
}
for (const i of repos.keys()) rmSync(`/tmp/listwork/ph-${i}`, { recursive: true, force: true });
console.log(`raw ${rawBytes} B; medians of ${rounds} rounds (after-write: of ${rounds * 8})`);
const keys = Object.keys(res[repos[0]!]!);
console.log(`| figure | ${repos.join(' | ')} | ratio (last / first) |`);
console.log(`|---|${repos.map(() => '---').join('|')}|---|`);
for (const k of keys) {
  const m = repos.map((r) => med(res[r]![k]!));
  console.log(
    `| ${k} | ${m.map((x) => x.toFixed(1)).join(' | ')} | ${(m[m.length - 1]! / m[0]!).toFixed(2)} |`,
  );
}
