/**
 * Server CPU per request of the hot read routes, for one or more bundled servers side by side
 * (`npm run build:server` makes dist/server/main.js; copy an older build elsewhere to compare).
 * The figure is the server's CPU time (user + system, every thread, from /proc) over a wrk run,
 * divided by the requests wrk completed: on a machine shared with other work it is much steadier
 * than req/s. Each route is measured in rounds, the servers alternating, and the median is kept.
 *
 *   tsx bench/cpu-per-request.ts --vault DIR --data DIR [--seconds 4] [--rounds 3] BUNDLE...
 *
 * A BUNDLE named `bare` is the ceiling: a bare node:http server answering a small JSON body.
 *
 * DATA DIR holds one data dir per bundle (`<data>/<n>`), kept across runs so a restart starts from
 * the index cache. Needs wrk and taskset (server on CPU 0, wrk on CPU 1). Linux only.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { settle } from './children.ts';

const run = promisify(execFile);

async function cpuTicks(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

const BARE = `import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
const body = JSON.stringify({ success: true, data: { status: 'ok', version: '0.0.0' } });
mkdirSync(process.env.DATA_DIR, { recursive: true });
writeFileSync(process.env.DATA_DIR + '/credentials.json', '{"firstKeyPlain":""}');
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': body.length });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');`;

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  url: string;
  key: string;
}

async function start(
  bundle: string,
  vault: string,
  dataDir: string,
  own: Record<string, string> = {},
): Promise<Started> {
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const flags = values.node ? values.node.split(' ') : [];
  // `bare`: the ceiling, a bare node:http server answering a 110-byte JSON body to every request.
  const main = bundle.endsWith('/bare') ? ['--input-type=module', '-e', BARE] : [bundle];
  const child = spawn('taskset', ['-c', '0', process.execPath, ...flags, ...main], {
    env: {
      ...process.env,
      ...Object.fromEntries(
        values.env!.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
      ),
      PORT: String(port),
      HOST: '127.0.0.1',
      VAULT_DIR: vault,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SERVICE_AUTH_MODE: 'api-key',
      CORS_ORIGINS: 'http://localhost:5173',
      RECONCILE_SECONDS: '3600',
      PAIRING_MODE: 'open-port',
      ...own,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The access log goes to a pipe that is read and dropped, as a log collector would.
  child.stdout!.on('data', (d: Buffer) => {
    // Lines that are not the JSON log (--trace-gc and the like) are passed on to stderr.
    if (values.node?.includes('--trace'))
      for (const l of d.toString().split('\n')) if (l && l[0] !== '{') process.stderr.write(`${l}\n`);
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  // Ready: health says ok (whatever LOG_LEVEL the server logs at); the bare server answers at once.
  for (;;) {
    if (exited !== undefined) throw new Error(`server exited ${exited}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`)
      .then(async (r) => (await r.text()).includes('"ok"'))
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await settle(child.pid!);
  const creds = JSON.parse(await readFile(join(dataDir, 'credentials.json'), 'utf8')) as {
    firstKeyPlain: string;
  };
  return { child, url: `http://127.0.0.1:${port}`, key: creds.firstKeyPlain };
}

async function wrk(
  url: string,
  seconds: number,
  headers: Record<string, string>,
  conns = 32,
  script?: string,
) {
  const args = ['-c', '1', 'wrk', '-t1', `-c${conns}`, `-d${seconds}s`];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  if (script) args.push('-s', script);
  args.push(url);
  const { stdout } = await run('taskset', args, { maxBuffer: 1 << 20 });
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return { requests, non2xx };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    vault: { type: 'string' },
    data: { type: 'string' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    routes: { type: 'string', default: 'health,note,origin,304,rr' } /* also: gzlist */,
    /** NAME=VALUE for every server, e.g. NOTE_CACHE_BYTES=1048576 for a round robin of misses. */
    env: { type: 'string', multiple: true, default: [] },
    /** Extra node flags, e.g. --cpu-prof --cpu-prof-dir=DIR. */
    node: { type: 'string', default: '' },
  },
});
if (!values.vault || !values.data || positionals.length === 0) {
  process.stderr.write('usage: tsx bench/cpu-per-request.ts --vault DIR --data DIR BUNDLE...\n');
  process.exit(2);
}
const vault = resolve(values.vault);
const seconds = Number(values.seconds);
const servers: Started[] = [];
try {
  for (const [i, b] of positionals.entries()) {
    // BUNDLE::NAME=VALUE,NAME=VALUE sets that server's own environment (e.g. LOG_LEVEL=warn).
    const [file, envs] = b.split('::') as [string, string | undefined];
    const own = Object.fromEntries(
      (envs ? envs.split(',') : []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
    );
    servers.push(
      await start(resolve(file), vault, join(values.data, file === 'bare' ? 'bare' : String(i)), own),
    );
  }
  const paths = (await run('find', [vault, '-name', '*.md'], { maxBuffer: 64 << 20 })).stdout
    .trim()
    .split('\n')
    .map(
      (p) =>
        `/api/v1/notes/${p
          .slice(vault.length + 1)
          .split('/')
          .map(encodeURIComponent)
          .join('/')}`,
    )
    .sort();
  const script = join(resolve(values.data), 'rr.lua');
  await (await import('node:fs/promises')).writeFile(
    script,
    `local paths = {\n${paths.map((p) => JSON.stringify(p)).join(',\n')}\n}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n`,
  );
  const one = paths[0]!;
  const etags: string[] = [];
  for (const s of servers) {
    const r = await fetch(s.url + one, { headers: { 'x-service-key': s.key } });
    await r.arrayBuffer();
    etags.push(r.headers.get('etag') ?? '');
  }
  const routes: Record<string, (s: Started, i: number) => Parameters<typeof wrk>> = {
    health: (s) => [`${s.url}/api/v1/health`, seconds, {}],
    note: (s) => [s.url + one, seconds, { 'x-service-key': s.key }],
    origin: (s) => [s.url + one, seconds, { 'x-service-key': s.key, origin: 'http://localhost:5173' }],
    304: (s, i) => [s.url + one, seconds, { 'x-service-key': s.key, 'if-none-match': etags[i]! }],
    rr: (s) => [`${s.url}/`, seconds, { 'x-service-key': s.key }, 32, script],
    gzlist: (s) => [`${s.url}/api/v1/notes`, seconds, { 'x-service-key': s.key, 'accept-encoding': 'gzip' }],
  };
  const { stdout: load0 } = await run('cat', ['/proc/loadavg']);
  process.stdout.write(`load average at start: ${load0}`);
  for (const name of values.routes!.split(',')) {
    const per: number[][] = servers.map(() => []);
    // One unmeasured second per server first (JIT, page cache).
    for (const [i, s] of servers.entries()) {
      const [url, , h, c, sc] = routes[name]!(s, i);
      await wrk(url, 1, h, c, sc);
    }
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const [i, s] of servers.entries()) {
        const t0 = await cpuTicks(s.child.pid!);
        const w = await wrk(...routes[name]!(s, i));
        const t1 = await cpuTicks(s.child.pid!);
        per[i]!.push(((t1 - t0) * 10_000) / w.requests);
        if (w.non2xx && name !== '304') process.stdout.write(`  ${name} server ${i}: ${w.non2xx} non-2xx\n`);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    process.stdout.write(
      `${name.padEnd(7)} ${per.map((xs, i) => `#${i} ${med(xs).toFixed(1)} µs/req (${xs.map((x) => x.toFixed(0)).join(', ')})`).join('   ')}\n`,
    );
  }
  const { stdout: load1 } = await run('cat', ['/proc/loadavg']);
  process.stdout.write(`load average at end: ${load1}`);
} finally {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise((res) => {
          s.child.once('exit', res);
          s.child.kill('SIGTERM');
        }),
    ),
  );
}
