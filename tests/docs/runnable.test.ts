/**
 * The shell blocks of README.md and docs/ (every folder) whose fence says `sh runnable` run as written, in an
 * empty folder holding the release tarball (as an operator who downloaded it), file by file, block
 * after block, with PORT and RELAY_PORT set to free ports. Each block has a time limit; whatever it
 * left running (its process group) is killed when it ends. A broken step fails here.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { release } from '../../deploy/shared/release/build.ts';
import { freePort } from '../helpers/ports.ts';

const ROOT = join(import.meta.dirname, '../..');
const BLOCK_MS = 60_000;

/** The runnable blocks of one markdown file, in order. */
export function runnableBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const m of markdown.matchAll(/^```(?:sh|bash) runnable[^\n]*\n([\s\S]*?)^```$/gm)) blocks.push(m[1]!);
  return blocks;
}

/** The markdown pages under `dir`, recursively. */
const pages = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
const FILES = ['README.md', ...pages('docs')];
const byFile = FILES.map((f) => ({
  file: f,
  blocks: runnableBlocks(readFileSync(join(ROOT, f), 'utf8')),
})).filter((f) => f.blocks.length > 0);

/** Runs one block with bash -euo pipefail in `cwd`; kills its process group when it ends or times out. */
function runBlock(block: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', block], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      out += `\n[timed out after ${BLOCK_MS} ms]`;
      killGroup();
    }, BLOCK_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, out });
    });
  });
}

describe('runnable blocks of the README and docs', () => {
  let tarball = '';
  const dirs: string[] = [];
  beforeAll(async () => {
    const build = mkdtempSync(join(tmpdir(), 'quire-docs-build-'));
    dirs.push(build);
    tarball = await release({ out: build });
  }, 120_000);
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('finds the marked blocks (docs/guide/deploy.md: install, run, two relays on Redis)', () => {
    const deploy = byFile.find((f) => f.file === 'docs/guide/deploy.md');
    expect(deploy?.blocks.length).toBeGreaterThanOrEqual(3);
    expect(deploy?.blocks.join('\n')).toContain('RELAY_QUEUE_KEY');
  });

  for (const { file, blocks } of byFile) {
    it(`${file}: ${blocks.length} block(s) run as written`, async () => {
      const scratch = mkdtempSync(join(tmpdir(), 'quire-docs-'));
      dirs.push(scratch);
      copyFileSync(tarball, join(scratch, basename(tarball)));
      const env = { PORT: String(await freePort()), RELAY_PORT: String(await freePort()) };
      for (const [i, block] of blocks.entries()) {
        const { code, out } = await runBlock(block, scratch, env);
        expect(code, `${file} block ${i + 1}:\n${block}\n--- output ---\n${out}`).toBe(0);
      }
    }, 240_000);
  }
});
