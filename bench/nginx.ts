/**
 * nginx as a reverse proxy in front of a note server: the anchor for what the relay adds to a read
 * (bench/relay-throughput.ts measures both in the same rounds). One process (`master_process off`,
 * one worker's work in it, so its CPU is one /proc entry and one `taskset` pins it), keep-alive
 * connections to the server as the relay's tunnel keeps one, HTTP/1.1 upstream, no access log (the
 * relay runs at LOG_LEVEL=warn and writes none either), proxy buffering left at nginx's default.
 * Needs the Debian package `nginx` (`apt-get install nginx`); `nginxAvailable()` says whether it is.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../tests/helpers/ports.ts';

const run = promisify(execFile);
const BIN = process.env.BENCH_NGINX ?? 'nginx';

/** True when an nginx binary answers `nginx -v`. */
export async function nginxAvailable(): Promise<boolean> {
  try {
    await run(BIN, ['-v']);
    return true;
  } catch {
    return false;
  }
}

/** The configuration: one process, keep-alive upstream, nothing written per request. */
export function nginxConfig(dir: string, listenPort: number, upstream: URL): string {
  const tmp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
  return `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${tmp('client_body')} ${tmp('proxy')} ${tmp('fastcgi')} ${tmp('uwsgi')} ${tmp('scgi')}
  upstream quire { server ${upstream.host}; keepalive 64; }
  server {
    listen 127.0.0.1:${listenPort};
    location / {
      proxy_pass http://quire;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }
  }
}
`;
}

/** nginx proxying every path to `upstream` (an http://127.0.0.1:PORT URL), ready to answer. */
export async function startNginx(upstream: string) {
  const dir = await mkdtemp(join(tmpdir(), 'quire-nginx-'));
  for (const d of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) await mkdir(join(dir, d));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, nginxConfig(dir, port, new URL(upstream)));
  const proc: ChildProcess = spawn(BIN, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr?.on('data', (d) => {
    err += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGQUIT'); // graceful: finishes what it serves, then exits
      setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await stop();
      throw new Error(`nginx exited: ${err}`);
    }
    const up = await fetch(`${url}/api/v1/health`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`nginx not ready: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, pid: proc.pid as number, stop };
}
