import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) out.push(join(e.parentPath, e.name));
  }
  return out;
}

const importsOf = (text: string) =>
  [...text.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

describe('the relay stands below the note server', () => {
  it('imports nothing of the server HTTP adapter (only http-kit/, shared with it)', async () => {
    const files = [
      ...(await tsFiles(new URL('../../relay', import.meta.url).pathname)),
      ...(await tsFiles(new URL('../../deploy/relay', import.meta.url).pathname)),
    ];
    expect(files.length).toBeGreaterThan(10);
    const bad: string[] = [];
    for (const f of files) {
      for (const spec of importsOf(await readFile(f, 'utf8'))) {
        if (/adapters\/http\//.test(spec) || /deploy\/node\//.test(spec)) bad.push(`${f}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('relay/ imports nothing from adapters/ or deploy/ (it takes its configuration and logger as arguments)', async () => {
    const root = new URL('../..', import.meta.url).pathname;
    const bad: string[] = [];
    for (const f of await tsFiles(new URL('../../relay', import.meta.url).pathname)) {
      for (const spec of importsOf(await readFile(f, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(f), spec));
        if (/^(adapters|deploy)\//.test(target)) bad.push(`${relative(root, f)}: ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('its wire code (relay/protocol) uses web standards only', async () => {
    const files = await tsFiles(new URL('../../relay/protocol', import.meta.url).pathname);
    expect(files.length).toBeGreaterThan(0);
    const bad: string[] = [];
    for (const f of files) {
      const text = (await readFile(f, 'utf8')).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      if (/from\s+['"]node:|\bBuffer\b|\bprocess\./.test(text)) bad.push(f);
    }
    expect(bad).toEqual([]);
  });
});
