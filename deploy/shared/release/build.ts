/**
 * `npm run release`: the one production artifact. Builds the web client (when its sources changed),
 * bundles the `quire` command with every runtime dependency inside (esbuild, code-split so the AI SDK,
 * the MCP SDK and ioredis load only when used), and packs it with the built client and a minimal
 * package.json into dist/release/quire-notes-server-<version>.tgz. The unpacked tree stays in
 * dist/release/quire-server (what `npm start` runs). Runs with `node` alone: no node_modules.
 */
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { newestMtime } from './fresh.js';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '../../..');
/** Where the release goes. */
export const RELEASE_DIR = join(ROOT, 'dist/release');
/** The unpacked artifact under dist/release (`npm start` runs its bin/quire.js); `.built` in it is
 * written last, its mtime says when the artifact was built (deploy/shared/release/fresh.js). */
export const STAGE_DIR = join(RELEASE_DIR, 'quire-server');
/** The published name of the server package (checked free on the npm registry). */
export const SERVER_PACKAGE = '@quire-notes/server';

const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  description: string;
  engines: { node: string };
};

/** The tarball's file name for `version`. */
export const tarballName = (version = rootPkg.version) => `quire-notes-server-${version}.tgz`;

/** Runs a command (asynchronously: a test's worker keeps answering meanwhile); resolves to its stdout. */
export async function run(cmd: string, args: string[], cwd = ROOT): Promise<string> {
  try {
    return (await promisify(execFile)(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }))
      .stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: unknown };
    throw new Error(`${cmd} ${args.join(' ')} failed (${String(e.code)}):
${e.stdout ?? ''}
${e.stderr ?? ''}`);
  }
}

/** Builds the client into client-link/dist unless it is newer than every client source. */
async function buildClient(say: (line: string) => void): Promise<void> {
  const built = newestMtime(join(ROOT, 'client-link/dist/index.html'));
  const sources = Math.max(
    newestMtime(join(ROOT, 'client-link')),
    newestMtime(join(ROOT, 'package-lock.json')),
  );
  if (built > 0 && built >= sources && existsSync(join(ROOT, 'client-link/dist/api-reference.js'))) {
    say('web client: up to date (client-link/dist)');
    return;
  }
  say('web client: building client-link/dist with vite (the longest step)...');
  await run(process.execPath, [
    join(ROOT, 'node_modules/vite/bin/vite.js'),
    'build',
    '--config',
    'client-link/vite.config.ts',
    '--logLevel',
    'warn',
  ]);
}

/**
 * Start-up trims (the target: spawn to health under 300 ms). Each swaps a module the server loads at
 * start for a smaller one with the same behaviour for what the bundle uses; a name the bundle
 * imports but a shim lacks fails the build, so a dependency update cannot silently break one.
 * - `node:process` as an ES module (vfile's default import): Node builds that module by reading
 *   every property of `process`, `allowedNodeEnvironmentFlags` included (~25 ms under load); the
 *   object itself is the same thing.
 * - `rate-limiter-flexible`: its index requires every store (Redis, Mongo, MySQL, Postgres, cluster,
 *   ...; 97 KB); the server uses the memory limiter and its result class only.
 * - `node:http2` in @hono/node-server: imported for `instanceof Http2ServerRequest` checks; loading
 *   it costs ~20 ms under load, and a request can only be an HTTP/2 one once something loaded
 *   http2 (our servers are node:http), so the check loads it only then.
 */
const RLF = join(ROOT, 'node_modules/rate-limiter-flexible/lib');
const SHIMS: Record<string, string> = {
  process: 'export default globalThis.process;',
  'rate-limiter-flexible': `export { default as RateLimiterMemory } from ${JSON.stringify(join(RLF, 'RateLimiterMemory.js'))};
export { default as RateLimiterRes } from ${JSON.stringify(join(RLF, 'RateLimiterRes.js'))};`,
  http2: `let h2;
const loaded = () => !Array.isArray(process.moduleLoadList) || process.moduleLoadList.includes('NativeModule http2');
const real = () => (h2 ??= process.getBuiltinModule('node:http2'));
export const Http2ServerRequest = { [Symbol.hasInstance]: (x) => loaded() && x instanceof real().Http2ServerRequest };
export const constants = new Proxy({}, { get: (_, k) => real().constants[k] });`,
};
const startupShims: Plugin = {
  name: 'quire-startup-shims',
  setup(b) {
    const shim = (name: string) => () => ({ path: name, namespace: 'quire-shim' });
    b.onResolve({ filter: /^node:process$/ }, shim('process'));
    b.onResolve({ filter: /^rate-limiter-flexible$/ }, shim('rate-limiter-flexible'));
    b.onResolve({ filter: /^node:http2$/ }, (a) =>
      a.importer.includes('node_modules/@hono/node-server/') ? shim('http2')() : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'quire-shim' }, (a) => ({
      contents: SHIMS[a.path],
      resolveDir: ROOT,
    }));
  },
};

/** Bundles the CLI and the analyze worker into `out` (ESM chunks side by side). */
async function bundle(out: string): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { quire: 'deploy/node/cli/entry.ts', 'analyze-worker': 'adapters/node/analyze-worker.ts' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: out,
    chunkNames: 'chunk-[hash]',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [startupShims],
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __quireRequire } from 'node:module'; const require = __quireRequire(import.meta.url);",
    },
  });
}

const BIN = `#!/usr/bin/env node
// The \`quire\` command of the release: the bundled CLI, no TypeScript loader, no node_modules.
// Node >= 22.1 keeps V8's compiled code of the bundle on disk (in the OS temp folder) so later
// starts skip compiling it; NODE_DISABLE_COMPILE_CACHE=1 turns that off. Older Node: no cache.
import module from 'node:module';
module.enableCompileCache?.();
await import('../dist/server/quire.js');
`;

const README = `# ${SERVER_PACKAGE}

The Quire note server and relay, as one artifact: \`node bin/quire.js serve\`, \`node bin/quire.js relay\`,
\`node bin/quire.js setup|keys|index|doctor\`. Needs Node ${rootPkg.engines.node} and nothing else (every
dependency is bundled in dist/server; the web client is in client-link/dist). See docs/guide/deploy.md in the repository.
`;

/**
 * Builds the artifact; resolves to the tarball's path. `out` (default dist/release) holds the tarball
 * and the unpacked tree (`quire-server`); tests give their own so parallel builds never meet.
 */
export async function release(opts: { out?: string; log?: (line: string) => void } = {}): Promise<string> {
  const out = opts.out ?? RELEASE_DIR;
  const stage = join(out, 'quire-server');
  const stamp = join(stage, '.built');
  const started = performance.now();
  // A line as each phase begins: the first `npm start` on a fresh clone builds for a while.
  const say = (line: string) =>
    opts.log?.(`release: [${((performance.now() - started) / 1000).toFixed(1)} s] ${line}`);
  await buildClient(say);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, 'bin'), { recursive: true });
  say('server: bundling the quire command with its dependencies (esbuild)...');
  await bundle(join(stage, 'dist/server'));
  cpSync(join(ROOT, 'client-link/dist'), join(stage, 'client-link/dist'), { recursive: true });
  writeFileSync(join(stage, 'bin/quire.js'), BIN);
  chmodSync(join(stage, 'bin/quire.js'), 0o755);
  writeFileSync(join(stage, 'README.md'), README);
  cpSync(join(ROOT, 'deploy/quire.service'), join(stage, 'quire.service'));
  const pkg = {
    name: SERVER_PACKAGE,
    version: rootPkg.version,
    description: rootPkg.description,
    license: rootPkg.license,
    type: 'module',
    engines: rootPkg.engines,
    bin: { quire: 'bin/quire.js' },
    files: ['bin', 'dist', 'client-link/dist', 'README.md', 'quire.service'],
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const tgz = join(out, tarballName());
  rmSync(tgz, { force: true });
  say(`tarball: packing ${tarballName()} (npm pack)...`);
  await run('npm', ['pack', '--silent', '--pack-destination', out], stage);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return tgz;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const started = performance.now();
  const tgz = await release({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`release: ${tgz} (built in ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}
