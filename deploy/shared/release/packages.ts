/**
 * `npm run packages`: the lean packages for embedders, next to the server artifact (build.ts).
 * - @quire-notes/core: the note core (core/) and the in-memory stores; its dependencies are exactly
 *   the packages core/ imports at run time (taken from the root package.json's versions).
 * - @quire-notes/client: the typed client (sdk/), one file, no runtime dependency.
 * Each is bundled by esbuild (the package's own code in one ES module, dependencies left as imports),
 * typed by tsc's declarations, and packed with `npm pack` into dist/packages/.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { run } from './build.ts';

const ROOT = join(import.meta.dirname, '../../..');
/** Where the packed packages go. */
export const PACKAGES_DIR = join(ROOT, 'dist/packages');
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  engines: { node: string };
  dependencies: Record<string, string>;
};

/** One lean package: its entries (subpath -> source) and the dependencies its bundle imports. */
interface Lean {
  name: string;
  dir: string;
  description: string;
  entries: Record<string, string>;
  readme: string;
}

/** The packages, by folder name under dist/packages. */
export const PACKAGES: Lean[] = [
  {
    name: '@quire-notes/core',
    dir: 'core',
    description: "Quire's note core: notes, links, search, the agent's tools, behind ports you implement",
    entries: { '.': 'core/index.ts', './memory': 'deploy/shared/release/memory-stores.ts' },
    readme: `# @quire-notes/core

Quire's hexagonal note core for embedding: \`createCore({ store, clock })\` with any \`NoteStore\`.
\`@quire-notes/core/memory\` has in-memory stores. No HTTP, no Node built-ins.

\`\`\`js
import { createCore } from '@quire-notes/core';
import { memoryNoteStore } from '@quire-notes/core/memory';
const core = createCore({ store: memoryNoteStore(), clock: { now: Date.now } });
await core.load();
await core.notes.create('hello.md', '# Hello');
\`\`\`
`,
  },
  {
    name: '@quire-notes/client',
    dir: 'client',
    description: "Typed client of Quire's HTTP API (fetch only, no runtime dependency)",
    entries: { '.': 'sdk/index.ts' },
    readme: `# @quire-notes/client

The typed client of a Quire server's API: fetch only, no runtime dependency.

\`\`\`js
import { createQuireClient } from '@quire-notes/client';
const quire = createQuireClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.QUIRE_API_KEY });
console.log(await quire.notes.list());
\`\`\`

The request and answer types name valibot's; install \`valibot\` (an optional peer dependency) for
full types in TypeScript. JavaScript needs nothing.
`,
  },
];

const outName = (sub: string) => (sub === '.' ? 'index' : sub.slice(2));

/** The bare package names an ES module bundle still imports. */
function importedPackages(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(/(?:from|import)\s*["']([^"'.][^"']*)["']/g)) {
    const spec = m[1]!;
    if (spec.startsWith('node:')) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return names;
}

/** Declarations of every package's entries, emitted once into `out` (paths as in the repository). */
async function declarations(out: string): Promise<void> {
  const config = join(out, 'tsconfig.json');
  const files = PACKAGES.flatMap((p) => Object.values(p.entries).map((e) => join(ROOT, e)));
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        emitDeclarationOnly: true,
        // Declarations only: the project's typecheck (npm test) checks the sources.
        noCheck: true,
        outDir: join(out, 'types'),
        rootDir: ROOT,
        types: [],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      include: [],
      files,
    }),
  );
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config]);
  rewriteExtensions(join(out, 'types'));
}

/** The declarations import './x.ts' (as the sources do); published types import './x.js'. */
function rewriteExtensions(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) rewriteExtensions(p);
    else if (p.endsWith('.d.ts'))
      writeFileSync(p, readFileSync(p, 'utf8').replace(/(['"])(\.{1,2}\/[^'"]+)\.ts\1/g, '$1$2.js$1'));
  }
}

/** Builds and packs every lean package; resolves to their tarballs by folder name. */
export async function buildPackages(): Promise<Record<string, string>> {
  rmSync(PACKAGES_DIR, { recursive: true, force: true });
  const work = join(PACKAGES_DIR, '.work');
  mkdirSync(work, { recursive: true });
  await declarations(work);
  const tarballs: Record<string, string> = {};
  for (const p of PACKAGES) {
    const dir = join(PACKAGES_DIR, p.dir);
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: Object.fromEntries(Object.entries(p.entries).map(([sub, src]) => [outName(sub), src])),
      bundle: true,
      splitting: true,
      packages: 'external',
      platform: 'neutral',
      format: 'esm',
      target: 'es2022',
      outdir: join(dir, 'dist'),
      chunkNames: 'chunk-[hash]',
      write: true,
      metafile: true,
      logLevel: 'warning',
    });
    const deps = new Set<string>();
    for (const [file] of Object.entries(result.metafile.outputs))
      for (const d of importedPackages(readFileSync(join(ROOT, file), 'utf8'))) deps.add(d);
    cpSync(join(work, 'types'), join(dir, 'types'), { recursive: true });
    const exports = Object.fromEntries(
      Object.entries(p.entries).map(([sub, src]) => [
        sub,
        { types: `./types/${src.replace(/\.ts$/, '.d.ts')}`, default: `./dist/${outName(sub)}.js` },
      ]),
    );
    const dependencies = Object.fromEntries(
      [...deps].sort().map((d) => {
        const range = root.dependencies[d];
        if (!range) throw new Error(`${p.name} imports ${d}, which is not a dependency of the root package`);
        return [d, range];
      }),
    );
    const typesOnly = p.dir === 'client' ? { valibot: root.dependencies.valibot! } : undefined;
    const pkg = {
      name: p.name,
      version: root.version,
      description: p.description,
      license: root.license,
      type: 'module',
      engines: root.engines,
      sideEffects: false,
      exports,
      files: ['dist', 'types', 'README.md'],
      ...(Object.keys(dependencies).length ? { dependencies } : {}),
      ...(typesOnly
        ? { peerDependencies: typesOnly, peerDependenciesMeta: { valibot: { optional: true } } }
        : {}),
    };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    writeFileSync(join(dir, 'README.md'), p.readme);
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', PACKAGES_DIR], dir);
    const name = packed.trim().split('\n').pop()!;
    tarballs[p.dir] = join(PACKAGES_DIR, name);
  }
  rmSync(work, { recursive: true, force: true });
  return tarballs;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const started = performance.now();
  const out = await buildPackages();
  process.stdout.write(
    `packages: ${Object.values(out).join(', ')} (${Math.round(performance.now() - started)} ms)\n`,
  );
}
