/**
 * `npx tsx bench/oauth-cost.ts`: what an OAuth registration and a refresh cost once a registration
 * flood has filled the server, for this checkout and for a baseline commit in the same run
 * (BENCH_BASELINE_REF, default the merge base with `main`), each in its own process.
 *
 * Each side: a real `oauth.json` in a temp DATA_DIR (fsStateStore); one client approved (a grant
 * and its refresh token); then BENCH_FLOOD registrations (default 500, the old cap), each the
 * largest that side accepts (10 redirect URIs as long as allowed); then BENCH_ROUNDS more
 * registrations and BENCH_ROUNDS refreshes, timed one by one. Reports medians, the file's size,
 * the RSS, and whether the approved client is still known.
 *
 * Prints a markdown table (for bench/results/). The child mode is `--child <root>`.
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from '../tests/helpers/child.ts';

const FLOOD = Number(process.env.BENCH_FLOOD ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const REDIRECT = 'http://127.0.0.1:5000/cb';
const VERIFIER = 'v'.repeat(43);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Result {
  floodSeconds: number;
  registerMs: number;
  refreshMs: number;
  fileBytes: number;
  rssMb: number;
  approvedKept: boolean;
  uriChars: number;
}

type Service = {
  init(): Promise<void>;
  registerClient(m: { redirect_uris: string[] }): Promise<{ clientId: string }>;
  client(id: string): unknown;
  checkAuthorize(p: Record<string, string>, resource: string): unknown;
  issueCode(req: unknown, keyId: string, scope: { capabilities: string[] }): Promise<string>;
  exchangeCode(p: Record<string, string>, issuer: string): Promise<{ refresh_token: string }>;
  refresh(p: Record<string, string>, issuer: string): Promise<{ refresh_token: string }>;
};

/** The largest registration `oauth` accepts: 10 URIs, each as long as it lets through. */
async function largestUris(oauth: Service): Promise<number> {
  for (const len of [1990, 1000, 390, 200, 100]) {
    try {
      await oauth.registerClient({ redirect_uris: uris(0, len) });
      return len;
    } catch {}
  }
  throw new Error('no registration of 10 URIs is accepted');
}
const uris = (i: number, len: number) =>
  Array.from({ length: 10 }, (_, j) => {
    const head = `https://flood.example/${i}/${j}/`;
    return head + 'x'.repeat(len - head.length);
  });

async function child(root: string): Promise<Result> {
  const { createOAuthService } = await import(join(root, 'core/auth/oauth.ts'));
  const { fsStateStore } = await import(join(root, 'adapters/store/fs-state-store.ts'));
  const dir = mkdtempSync(join(tmpdir(), 'quire-oauth-bench-'));
  try {
    const state = fsStateStore({ dir });
    const oauth: Service = createOAuthService({
      state,
      clock: { now: () => Date.now() },
      auth: { hasKey: () => true },
    });
    await oauth.init();
    const approved = await oauth.registerClient({ redirect_uris: [REDIRECT] });
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(VERIFIER));
    const challenge = Buffer.from(digest).toString('base64url');
    const req = oauth.checkAuthorize(
      {
        client_id: approved.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      'https://notes.example/mcp',
    );
    const code = await oauth.issueCode(req, 'key', { capabilities: ['notes:read'] });
    let tokens = await oauth.exchangeCode(
      { code, client_id: approved.clientId, redirect_uri: REDIRECT, code_verifier: VERIFIER },
      'https://notes.example',
    );
    const len = await largestUris(oauth);
    const t0 = performance.now();
    for (let i = 1; i < FLOOD; i++) await oauth.registerClient({ redirect_uris: uris(i, len) });
    const floodSeconds = (performance.now() - t0) / 1000;
    const reg: number[] = [];
    const ref: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      let t = performance.now();
      await oauth.registerClient({ redirect_uris: uris(FLOOD + r, len) });
      reg.push(performance.now() - t);
      t = performance.now();
      tokens = await oauth.refresh({ refresh_token: tokens.refresh_token }, 'https://notes.example');
      ref.push(performance.now() - t);
    }
    return {
      floodSeconds,
      registerMs: median(reg),
      refreshMs: median(ref),
      fileBytes: statSync(join(dir, 'oauth.json')).size,
      rssMb: process.memoryUsage().rss / 1024 / 1024,
      approvedKept: oauth.client(approved.clientId) !== null,
      uriChars: len,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(root: string): Result {
  const out = execFileSync('npx', ['tsx', join(ROOT, 'bench/oauth-cost.ts'), '--child', root], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

async function main() {
  const ref =
    process.env.BENCH_BASELINE_REF ?? execSync('git merge-base HEAD main', { cwd: ROOT }).toString().trim();
  const base = mkdtempSync(join(tmpdir(), 'quire-oauth-baseline-'));
  try {
    execSync(`git archive ${ref} core adapters | tar -x -C ${base}`, { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(base, 'node_modules'));
    const before = run(base);
    const after = run(ROOT);
    const head = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
    const row = (name: string, r: Result) =>
      `| ${name} | ${r.uriChars} | ${r.floodSeconds.toFixed(1)} | ${r.registerMs.toFixed(2)} | ${r.refreshMs.toFixed(2)} | ${(r.fileBytes / 1e6).toFixed(3)} | ${r.rssMb.toFixed(0)} | ${r.approvedKept ? 'yes' : 'no'} |`;
    console.log(
      [
        `Machine: ${cpus()[0]?.model ?? 'cpu'}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}.`,
        `Command: \`npx tsx bench/oauth-cost.ts\` (BENCH_FLOOD=${FLOOD}, BENCH_ROUNDS=${ROUNDS}); baseline ${ref.slice(0, 7)}, this run at ${head}.`,
        '',
        '| build | URI chars (x10) | flood of registrations, s | registration at the cap, ms (median) | refresh at the cap, ms (median) | oauth.json, MB | RSS, MB | approved client kept |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
        row(`baseline ${ref.slice(0, 7)}`, before),
        row('this branch', after),
        '',
        `Ratios (baseline / this branch): registration ${(before.registerMs / after.registerMs).toFixed(0)}x, refresh ${(before.refreshMs / after.refreshMs).toFixed(0)}x, file ${(before.fileBytes / after.fileBytes).toFixed(0)}x.`,
      ].join('\n'),
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await child(process.argv[3]!)));
} else {
  await main();
}
