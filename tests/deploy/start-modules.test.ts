/**
 * What the server loads before it answers: the modules its start imports statically, as the release
 * bundles them (esbuild, code-split, as deploy/shared/release/build.ts does). Every module loaded
 * there is compiled and run before the first list (Node 20 keeps no compiled code between starts),
 * so a parser only some requests need is imported by those requests (a dynamic import, its own
 * chunk), never at start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The inputs of every output chunk the entry reaches by static imports alone. */
function startInputs(meta: Metafile, entry: string): string[] {
  const outputs = meta.outputs;
  const first = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === entry);
  if (!first) throw new Error(`no output for ${entry}`);
  const seen = new Set<string>();
  const walk = (o: string) => {
    if (seen.has(o)) return;
    seen.add(o);
    for (const i of outputs[o]!.imports) if (i.kind === 'import-statement' && !i.external) walk(i.path);
  };
  walk(first);
  return [...seen].flatMap((o) => Object.keys(outputs[o]!.inputs));
}

describe('the modules a start loads', () => {
  it('leave out the remark pipeline (unified, micromark): only a section PATCH loads it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'quire-start-modules-'));
    try {
      const { metafile } = await build({
        absWorkingDir: ROOT,
        entryPoints: ['deploy/node/server.ts'],
        bundle: true,
        splitting: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        outdir: out,
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = startInputs(metafile, 'deploy/node/server.ts');
      // The start does load the notes core (the check that this walk sees what it should).
      expect(inputs.some((i) => i.endsWith('core/notes/writes.ts'))).toBe(true);
      const parsers = inputs.filter((i) =>
        /node_modules\/(unified|remark-parse|micromark|mdast-util-from-markdown)\//.test(i),
      );
      expect(parsers).toEqual([]);
      // ...and the PATCH path still reaches it, by a dynamic import.
      const all = Object.values(metafile.outputs).flatMap((o) => Object.keys(o.inputs));
      expect(all.some((i) => i.endsWith('core/notes/section-patch.ts'))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
