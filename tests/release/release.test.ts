import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { release } from '../../deploy/shared/release/build.ts';
import { quire, quireOnce } from './proc.ts';

/** Total bytes of the files under `dir`. */
function duBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? duBytes(p) : statSync(p).size;
  }
  return n;
}

/**
 * `npm run release` built, unpacked into an empty folder (no node_modules anywhere above it: the
 * temp dir), and run with `node` alone: the black-box smoke test of the production artifact.
 */
describe('the release artifact', () => {
  let dir = '';
  let app = '';
  const procs: ReturnType<typeof quire>[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quire-release-'));
    const tgz = await release({ out: join(dir, 'build') });
    execFileSync('tar', ['xzf', tgz, '-C', dir]);
    app = join(dir, 'package');
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is one versioned tarball under 15 MB unpacked, with a minimal package.json and no node_modules', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    const root = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(pkg.name).toBe('@quire-notes/server');
    expect(pkg.version).toBe(root.version);
    expect(pkg.bin).toEqual({ quire: 'bin/quire.js' });
    expect(pkg.dependencies).toBeUndefined();
    expect(existsSync(join(app, 'node_modules'))).toBe(false);
    expect(existsSync(join(app, 'client-link/dist/index.html'))).toBe(true);
    expect(existsSync(join(app, 'client-link/dist/api-reference.js'))).toBe(true);
    expect(duBytes(app)).toBeLessThan(15 * 1024 * 1024);
  });

  it('starts lean: the start-up trims are in the bundle, and Node >= 22.1 keeps its compile cache', () => {
    const server = join(app, 'dist/server');
    const code = readdirSync(server).map((f) => readFileSync(join(server, f), 'utf8'));
    // rate-limiter-flexible's index (every store: Mongo, MySQL, cluster...) is not bundled; the
    // memory limiter is.
    expect(code.some((c) => c.includes('RateLimiterMongo'))).toBe(false);
    expect(code.some((c) => c.includes('RateLimiterMemory'))).toBe(true);
    // node:http2 (and the node:process module facade) are not imported at all.
    expect(code.filter((c) => /from\s*"node:(http2|process)"/.test(c))).toEqual([]);
    const bin = readFileSync(join(app, 'bin/quire.js'), 'utf8');
    expect(bin).toContain('module.enableCompileCache?.()');
    expect(bin).toContain("await import('../dist/server/quire.js')");
  });

  it('serves: health, setup, a note created and read, /link and /workspace, then stops on SIGTERM', async () => {
    const data = join(dir, 'data');
    const server = quire(app, ['serve'], { PORT: '0', RELAY_PORT: '0', DATA_DIR: data, LOG_LEVEL: 'info' });
    procs.push(server);
    const url = (await server.logged('listening')).url as string;
    expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);

    const setup = (await (await fetch(`${url}/api/v1/system/setup`)).json()) as { data: { apiKey: string } };
    const headers = { 'x-service-key': setup.data.apiKey, 'content-type': 'application/json' };
    const created = await fetch(`${url}/api/v1/notes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path: 'hello.md', content: '# Hello\n\nFrom the release.' }),
    });
    expect(created.status).toBe(201);
    const read = await fetch(`${url}/api/v1/notes/hello.md`, { headers });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { content: string } }).data.content).toContain(
      'From the release.',
    );

    for (const page of ['/link', '/workspace']) {
      const res = await fetch(`${url}${page}`);
      expect(res.status, page).toBe(200);
      expect(await res.text()).toContain('<html');
    }

    const cli = await quireOnce(app, ['setup', '--url', url], {});
    expect(cli.code, cli.text).toBe(0);
    expect(cli.text).toContain('/link');

    expect(await server.stop()).toBe(0);
    expect(server.out.text).toContain('"msg":"stopped"');
  }, 60_000);

  it('runs the relay alone with quire relay, and SIGTERM stops it', async () => {
    const relay = quire(app, ['relay', '--port', '0', '--host', '127.0.0.1'], { LOG_LEVEL: 'info' });
    procs.push(relay);
    const url = (await relay.logged('relay listening')).url as string;
    expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);
    expect(await relay.stop()).toBe(0);
  }, 30_000);

  it('runs every other command: --version, --help, doctor, keys, index', async () => {
    const data = join(dir, 'data-cli');
    const env = { DATA_DIR: data, PAIRING_MODE: 'open-port', PORT: '0' };
    const version = await quireOnce(app, ['--version'], {});
    expect(version.text.trim()).toBe(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).version);
    for (const name of ['serve', 'relay', 'setup', 'keys', 'index', 'doctor']) {
      const help = await quireOnce(app, [name, '--help'], {});
      expect(help.code, `${name} --help: ${help.text}`).toBe(0);
    }
    const doctor = await quireOnce(app, ['doctor'], env);
    expect(doctor.text).toMatch(/ok\s+client\s+the web client and the API reference are built/);
    const index = await quireOnce(app, ['index'], env);
    expect(index.code, index.text).toBe(0);
    // The server of the test above made credentials in data/ and has stopped: offline key listing.
    const keys = await quireOnce(app, ['keys', 'list', '--offline'], { DATA_DIR: join(dir, 'data') });
    expect(keys.code, keys.text).toBe(0);
  }, 60_000);
});
