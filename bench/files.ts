/**
 * The attachments benchmark: GET of a file (whole, one range, 304) and a large streamed
 * PUT, Quire (`/api/v1/files`, key checked, through the whole middleware) against a bare node:http
 * file server over the same folder, measured in the same run. The PUT figure that matters is the
 * server's peak memory: an upload is streamed to disk, never held whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchChild, type ChildMessage, startChild } from './children.ts';
import { type LoadResult, type LoadSettings, median, runLoad } from './load.ts';

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
type Mem = ChildMessage & { rss: number; maxRss: number };

const MiB = 1024 * 1024;

/** Streams `bytes` of zeros-and-noise in 1 MiB chunks as a PUT body; resolves with the status and ms. */
async function upload(
  url: string,
  bytes: number,
  headers: Record<string, string>,
): Promise<{ status: number; ms: number }> {
  const chunk = new Uint8Array(randomBytes(MiB));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(ctl) {
      if (sent >= bytes) return ctl.close();
      sent += chunk.byteLength;
      ctl.enqueue(chunk);
    },
  });
  const t = performance.now();
  const res = await fetch(url, { method: 'PUT', headers, body, duplex: 'half' } as RequestInit);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t };
}

/** The attachments section of BENCHMARKS.md. */
export async function filesBench(opts: {
  runDir: string;
  load: LoadSettings;
  uploadMiB: number;
  header: string[];
  log: (line: string) => void;
}): Promise<string> {
  const vault = join(opts.runDir, 'files-vault');
  await mkdir(join(vault, 'img'), { recursive: true });
  await writeFile(join(vault, 'img', 'photo.jpg'), randomBytes(256 * 1024));
  const quire = startChild(here('./server-child.ts'), {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: join(opts.runDir, 'files-data'),
    VAULT_DIR: vault,
    PAIRING_MODE: 'open-port',
    LOG_LEVEL: 'warn',
    RATE_LIMIT: '0',
    MAX_FILE_BYTES: String((opts.uploadMiB + 1) * MiB),
  });
  const bare = startChild(here('./files-ceiling-child.ts'), { FILES_DIR: vault });
  const children: BenchChild[] = [quire, bare];
  try {
    const q = await quire.waitFor<ChildMessage & { url: string }>('ready');
    const b = await bare.waitFor<ChildMessage & { url: string }>('ready');
    const setup = ((await (await fetch(`${q.url}/api/v1/system/setup`)).json()) as any).data;
    const key = { 'x-service-key': setup.apiKey as string };
    const etag = (await fetch(`${q.url}/api/v1/files/img/photo.jpg`, { headers: key })).headers.get('etag')!;
    const rows: [string, LoadResult, LoadResult][] = [];
    const pair = async (
      label: string,
      quireHeaders: Record<string, string>,
      bareHeaders: Record<string, string>,
      status: number,
    ) => {
      opts.log(`files: ${label}`);
      const base = await runLoad(
        `${label} (bare)`,
        {
          url: b.url,
          paths: ['/files/img/photo.jpg'],
          headers: bareHeaders,
          expectStatus: status === 304 ? 200 : status,
        },
        opts.load,
      );
      const mine = await runLoad(
        label,
        {
          url: q.url,
          paths: ['/api/v1/files/img/photo.jpg'],
          headers: { ...key, ...quireHeaders },
          expectStatus: status,
        },
        opts.load,
      );
      rows.push([label, mine, base]);
    };
    await pair('GET 256 KiB file', {}, {}, 200);
    await pair('GET one 64 KiB range', { range: 'bytes=0-65535' }, { range: 'bytes=0-65535' }, 206);
    await pair(
      'GET with a matching If-None-Match (304; bare: 200 of 256 KiB)',
      { 'if-none-match': etag },
      {},
      304,
    );

    // Uploads: wall time and the server's peak memory, 3 rounds each, alternating.
    const put: { quire: number[]; bare: number[]; quirePeak: number[]; barePeak: number[] } = {
      quire: [],
      bare: [],
      quirePeak: [],
      barePeak: [],
    };
    const before = {
      quire: (await quire.ask<Mem>({ type: 'mem' }, 'mem')).maxRss,
      bare: (await bare.ask<Mem>({ type: 'mem' }, 'mem')).maxRss,
    };
    for (let round = 0; round < 3; round++) {
      opts.log(`files: PUT ${opts.uploadMiB} MiB, round ${round + 1}`);
      const a = await upload(`${q.url}/api/v1/files/up/big-${round}.bin`, opts.uploadMiB * MiB, key);
      if (a.status !== 201) throw new Error(`Quire PUT answered ${a.status}`);
      put.quire.push(a.ms);
      put.quirePeak.push((await quire.ask<Mem>({ type: 'mem' }, 'mem')).maxRss);
      await mkdir(join(vault, 'bare'), { recursive: true });
      const c = await upload(`${b.url}/files/bare%2Fbig-${round}.bin`, opts.uploadMiB * MiB, {});
      if (c.status !== 201) throw new Error(`bare PUT answered ${c.status}`);
      put.bare.push(c.ms);
      put.barePeak.push((await bare.ask<Mem>({ type: 'mem' }, 'mem')).maxRss);
    }
    const mb = (n: number) => (n / MiB).toFixed(0);
    const lines = [
      '### Attachments (`/api/v1/files`)',
      '',
      ...opts.header,
      `Quire: the Node server (key checked, every middleware) over a vault with one 256 KiB file; baseline ("bare"): a node:http file server streaming the same file (\`bench/files-ceiling-child.ts\`), measured in the same run, ${opts.load.connections} connections, ${opts.load.duration} s after ${opts.load.warmup} s warm-up.`,
      '',
      '| request | Quire req/s | bare req/s | ratio | Quire p50 ms | bare p50 ms | Quire p99 ms | failures |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map(
        ([label, m, bb]) =>
          `| ${label} | ${Math.round(m.rps).toLocaleString('en-US')} | ${Math.round(bb.rps).toLocaleString('en-US')} | ${(m.rps / bb.rps).toFixed(2)} | ${m.p50.toFixed(1)} | ${bb.p50.toFixed(1)} | ${m.p99.toFixed(1)} | ${m.failures} |`,
      ),
      '',
      `PUT of ${opts.uploadMiB} MiB, streamed in 1 MiB chunks, 3 rounds (medians): Quire ${median(put.quire).toFixed(0)} ms, bare ${median(put.bare).toFixed(0)} ms (ratio ${(median(put.quire) / median(put.bare)).toFixed(2)}). Peak RSS of the server process: Quire ${mb(before.quire)} MiB before the uploads, ${mb(Math.max(...put.quirePeak))} MiB after (+${mb(Math.max(...put.quirePeak) - before.quire)} MiB for a ${opts.uploadMiB} MiB body); bare ${mb(before.bare)} → ${mb(Math.max(...put.barePeak))} MiB.`,
      '',
    ];
    return lines.join('\n');
  } finally {
    await Promise.all(children.map((c) => c.stop().catch(() => null)));
  }
}
