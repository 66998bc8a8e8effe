/**
 * Issue 33: the cold start at vault scale, before and after, in one run. Per size: the
 * read-and-hash floor (bench/read-hash-floor.mjs), then cold starts of the bundled server
 * (`node dist/server/main.js` as `npm start` runs it, no index cache) of each variant, interleaved
 * run by run so that a loaded machine weighs on all alike: spawn to health 200, spawn to the first
 * full `GET /api/v1/notes`, and the memory right after that list (RSS, V8 heap used and total,
 * external and array buffers, through bench/mem-probe.mjs). With COLD_HEAP=1, one more start of
 * the last variant writes a heap snapshot after the list, summarized by constructor
 * (bench/heap-classes.mjs).
 *
 * One command: `npx tsx bench/cold-start.ts` (after `npm run build:server`; a baseline checkout
 * needs its own `npm run build:server`). Env:
 * - COLD_SIZES (default 10000,50000): generated vaults (bench/generate-vault.ts, under .bench-vaults/);
 * - COLD_RUNS (default 3): cold starts per variant and size;
 * - COLD_BASE: a checkout of the baseline (e.g. main) with dist/server built: variant `base`;
 * - COLD_FLAGS: `;`-separated node flag sets, each a variant of this checkout
 *   (e.g. `--max-semi-space-size=8;--max-semi-space-size=32`); `none` stands for no flag;
 * - COLD_HEAD_DIR: where the head variants' dist/server is (default this checkout; e.g. a frozen copy);
 * - COLD_HEAD=0: no variant of this checkout (only COLD_BASE: e.g. a frozen copy of an earlier build);
 * - COLD_HEAP=1: the heap-snapshot summary; COLD_OUT: also write the markdown there.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVault } from './generate-vault.ts';
import { median } from './load.ts';

const repo = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const sizes = (env.COLD_SIZES ?? '10000,50000').split(',').map(Number);
const runs = Number(env.COLD_RUNS ?? 3);
const log = (l: string) => process.stderr.write(`${l}\n`);

interface Variant {
  name: string;
  dir: string;
  flags: string[];
}
const variants: Variant[] = [];
if (env.COLD_BASE) variants.push({ name: 'base', dir: env.COLD_BASE, flags: [] });
for (const set of env.COLD_HEAD === '0' ? [] : (env.COLD_FLAGS ?? 'none').split(';')) {
  const flags = set === 'none' ? [] : set.split(' ').filter(Boolean);
  variants.push({
    name: flags.length ? `head ${flags.join(' ')}` : 'head',
    dir: env.COLD_HEAD_DIR ?? repo,
    flags,
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** CPU time of a process (every thread: the analyzer pool too), ms; less swayed by a loaded machine than wall time. */
const cpuMs = (pid: number, tid?: number) => {
  const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the whole line (11 and 12 after the name), in ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

interface Start {
  healthMs: number;
  listMs: number;
  cpuMs: number;
  /** The main thread's share (the critical path of a load whose parsing runs on threads). */
  mainCpuMs: number;
  rssMB: number;
  heapUsedMB: number;
  heapTotalMB: number;
  externalMB: number;
  arrayBuffersMB: number;
  newSpaceMB: number;
  heap?: { total: number; groups: { name: string; count: number; bytes: number }[] };
}

async function coldStart(v: Variant, vault: string, heapFile?: string): Promise<Start> {
  const tmp = await mkdtemp(join(tmpdir(), 'quire-cold-'));
  const port = await freePort();
  const args = [
    ...v.flags,
    '--import',
    join(repo, 'bench/mem-probe.mjs'),
    join(v.dir, 'dist/server/main.js'),
  ];
  const proc: ChildProcess = spawn(process.execPath, args, {
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: join(tmp, 'data'),
      VAULT_DIR: vault,
      PAIRING_MODE: 'open-port',
      SERVICE_AUTH_MODE: 'none',
      RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-2000);
  });
  const ask = <T>(msg: Record<string, unknown>) =>
    new Promise<T>((resolve) => {
      const on = (m: { type?: string }) => {
        if (m.type !== msg.type) return;
        proc.off('message', on);
        resolve(m as T);
      };
      proc.on('message', on);
      proc.send(msg);
    });
  const started = performance.now();
  const base = `http://127.0.0.1:${port}`;
  const until = async (path: string) => {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`server exited ${proc.exitCode}: ${stderr}`);
      try {
        const res = await fetch(base + path);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - started;
      } catch {}
      await sleep(path.endsWith('health') ? 2 : 10);
    }
  };
  try {
    const healthMs = await until('/api/v1/health');
    const listMs = await until('/api/v1/notes');
    const rss = rssMB(proc.pid!);
    const cpu = cpuMs(proc.pid!);
    const mainCpu = cpuMs(proc.pid!, proc.pid!);
    const MB = 1024 * 1024;
    const mem = await ask<{
      heapUsed: number;
      heapTotal: number;
      external: number;
      arrayBuffers: number;
      spaces: Record<string, { size: number }>;
    }>({ type: 'mem' });
    const out: Start = {
      healthMs,
      listMs,
      cpuMs: cpu,
      mainCpuMs: mainCpu,
      rssMB: rss,
      heapUsedMB: mem.heapUsed / MB,
      heapTotalMB: mem.heapTotal / MB,
      externalMB: mem.external / MB,
      arrayBuffersMB: mem.arrayBuffers / MB,
      newSpaceMB: (mem.spaces.new_space?.size ?? 0) / MB,
    };
    if (heapFile) {
      await ask({ type: 'heap-snapshot', file: heapFile });
      out.heap = JSON.parse(
        execFileSync(process.execPath, [join(repo, 'bench/heap-classes.mjs'), heapFile, '30'], {
          encoding: 'utf8',
          maxBuffer: 1 << 24,
        }),
      );
      await rm(heapFile, { force: true });
    }
    return out;
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    await rm(tmp, { recursive: true, force: true });
  }
}

const f0 = (n: number) => n.toFixed(0);
const lines: string[] = [];
const print = (l = '') => {
  lines.push(l);
  process.stdout.write(`${l}\n`);
};

print(
  `Cold start (issue 33): \`npx tsx bench/cold-start.ts\`, ${runs} cold starts per variant and size, interleaved; medians.`,
);
print(`Variants: ${variants.map((v) => `\`${v.name}\`${v.dir === repo ? '' : ` (${v.dir})`}`).join(', ')}.`);
print();
for (const notes of sizes) {
  const { dir: vault, manifest } = await ensureVault(join(repo, '.bench-vaults'), notes, 42);
  const floors: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, [join(repo, 'bench/read-hash-floor.mjs'), vault], {
      encoding: 'utf8',
    });
    floors.push((JSON.parse(out) as { ms: number }).ms);
  }
  const floor = median(floors);
  log(`${notes}: floor ${f0(floor)} ms`);
  const results = new Map<string, Start[]>(variants.map((v) => [v.name, []]));
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      const s = await coldStart(v, vault);
      results.get(v.name)!.push(s);
      log(
        `${notes} ${v.name}: list ${f0(s.listMs)} ms, cpu ${f0(s.cpuMs)} ms (main ${f0(s.mainCpuMs)}), rss ${f0(s.rssMB)} MB, heap ${f0(s.heapUsedMB)} MB`,
      );
    }
  }
  print(
    `### ${notes} notes (${(manifest.bytes / 1e6).toFixed(1)} MB, ${manifest.folders} folders); read-and-hash floor ${f0(floor)} ms`,
  );
  print();
  const first = variants[0]!.name;
  const med = (name: string, k: keyof Start) => median(results.get(name)!.map((s) => s[k] as number));
  print(
    '| variant | health, ms | cold list, ms | x floor | vs first | CPU to list, ms | vs first | main thread CPU, ms | vs first | RSS, MB | vs first | heap used / total, MB | new space, MB | external / array buffers, MB |',
  );
  print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const v of variants) {
    const m = (k: keyof Start) => med(v.name, k);
    print(
      `| ${v.name} | ${f0(m('healthMs'))} | ${f0(m('listMs'))} | ${(m('listMs') / floor).toFixed(1)}x | ${(m('listMs') / med(first, 'listMs')).toFixed(2)} | ${f0(m('cpuMs'))} | ${(m('cpuMs') / med(first, 'cpuMs')).toFixed(2)} | ${f0(m('mainCpuMs'))} | ${(m('mainCpuMs') / med(first, 'mainCpuMs')).toFixed(2)} | ${f0(m('rssMB'))} | ${(m('rssMB') / med(first, 'rssMB')).toFixed(2)} | ${f0(m('heapUsedMB'))} / ${f0(m('heapTotalMB'))} | ${f0(m('newSpaceMB'))} | ${f0(m('externalMB'))} / ${f0(m('arrayBuffersMB'))} |`,
    );
  }
  print();
  print(
    `Every run (list ms / RSS MB): ${variants
      .map(
        (v) =>
          `${v.name}: ${results
            .get(v.name)!
            .map((s) => `${f0(s.listMs)}/${f0(s.rssMB)}`)
            .join(', ')}`,
      )
      .join('; ')}.`,
  );
  print();
  if (env.COLD_HEAP === '1') {
    const v = variants[variants.length - 1]!;
    const s = await coldStart(v, vault, join(tmpdir(), `quire-cold-${notes}.heapsnapshot`));
    const MB = 1024 * 1024;
    print(
      `Heap snapshot of \`${v.name}\` after the cold list (RSS ${f0(s.rssMB)} MB, heap used ${f0(s.heapUsedMB)} MB, snapshot nodes' self sizes ${f0(s.heap!.total / MB)} MB), by constructor:`,
    );
    print();
    print('| what | count | MB | share |');
    print('|---|---|---|---|');
    for (const g of s.heap!.groups)
      print(
        `| ${g.name.replace(/\|/g, '\\|')} | ${g.count} | ${(g.bytes / MB).toFixed(1)} | ${((100 * g.bytes) / s.heap!.total).toFixed(1)}% |`,
      );
    print();
  }
}
if (env.COLD_OUT) writeFileSync(env.COLD_OUT, `${lines.join('\n')}\n`);
