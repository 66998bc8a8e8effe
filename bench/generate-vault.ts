/**
 * Deterministic generator of Obsidian-like vaults for benchmarks.
 *
 * As a function: `await generateVault({ dir, notes: 10_000, seed: 42 })`, or
 * `await ensureVault(root, 10_000)` to generate once under `root` and reuse afterwards.
 * As a CLI: `npx tsx bench/generate-vault.ts <out-dir> [--notes 1000] [--seed 42]`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { renderNote } from './vault-note.ts';
import { planVault } from './vault-plan.ts';

/** Bump when the generated text changes, so cached vaults are regenerated. */
export const GENERATOR_VERSION = 2;

/** What was generated; stored next to the vault as `<dir>.json`. */
export interface VaultManifest {
  generator: number;
  notes: number;
  seed: number;
  bytes: number;
  folders: number;
  /** Every note path, vault-relative, in generation order. */
  paths: string[];
}

/** Writes a vault of `notes` notes into `dir` (created; existing files are overwritten). */
export async function generateVault(opts: {
  dir: string;
  notes: number;
  seed?: number;
  concurrency?: number;
}): Promise<VaultManifest> {
  const seed = opts.seed ?? 42;
  const plan = planVault(opts.notes, seed);
  for (const folder of plan.byFolder.keys()) await mkdir(join(opts.dir, folder), { recursive: true });
  const encoder = new TextEncoder();
  let bytes = 0;
  let next = 0;
  const worker = async () => {
    while (next < plan.notes.length) {
      const i = next++;
      const data = encoder.encode(renderNote(plan, i, seed));
      bytes += data.length;
      await writeFile(join(opts.dir, plan.notes[i]!.path), data);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 32 }, worker));
  return {
    generator: GENERATOR_VERSION,
    notes: opts.notes,
    seed,
    bytes,
    folders: plan.byFolder.size,
    paths: plan.notes.map((n) => n.path),
  };
}

/**
 * Returns the vault of `notes` notes under `root`, generating it first when it is missing
 * or was made by another generator version. Generation goes to a temporary folder that is
 * renamed at the end, so an interrupted run never leaves a half vault that looks complete.
 */
export async function ensureVault(
  root: string,
  notes: number,
  seed = 42,
): Promise<{ dir: string; manifest: VaultManifest; generatedMs: number | null }> {
  const dir = join(root, `vault-${notes}-s${seed}`);
  const manifestFile = `${dir}.json`;
  if (existsSync(manifestFile) && existsSync(dir)) {
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as VaultManifest;
    if (manifest.generator === GENERATOR_VERSION) return { dir, manifest, generatedMs: null };
  }
  const started = performance.now();
  const tmp = `${dir}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
  await rm(manifestFile, { force: true });
  const manifest = await generateVault({ dir: tmp, notes, seed });
  await rename(tmp, dir);
  await writeFile(manifestFile, JSON.stringify(manifest));
  return { dir, manifest, generatedMs: performance.now() - started };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { notes: { type: 'string', default: '1000' }, seed: { type: 'string', default: '42' } },
  });
  const out = positionals[0];
  const notes = Number(values.notes);
  const seed = Number(values.seed);
  if (!out || !Number.isInteger(notes) || notes < 1 || !Number.isInteger(seed)) {
    process.stderr.write('usage: tsx bench/generate-vault.ts <out-dir> [--notes 1000] [--seed 42]\n');
    process.exit(2);
  }
  const started = performance.now();
  const m = await generateVault({ dir: resolve(out), notes, seed });
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `${m.notes} notes in ${m.folders} folders, ${(m.bytes / 1e6).toFixed(1)} MB, ${secs} s -> ${out}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();

/** Reads a generated vault whole: its manifest (`<dir>.json`) and every note's text by path. */
export async function readVaultFiles(
  dir: string,
): Promise<{ manifest: VaultManifest; files: Record<string, string> }> {
  const manifest = JSON.parse(await readFile(`${dir}.json`, 'utf8')) as VaultManifest;
  const files: Record<string, string> = {};
  for (const p of manifest.paths) files[p] = await readFile(join(dir, p), 'utf8');
  return { manifest, files };
}
