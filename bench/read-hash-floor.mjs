#!/usr/bin/env node
/**
 * The floor of any cold index: read every file of a vault and SHA-256 it, nothing else.
 * Plain Node, no TypeScript loader, 32 reads in flight. Prints `{"files":N,"bytes":B,"ms":T}`.
 * Usage: node bench/read-hash-floor.mjs <vault-dir>
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: node bench/read-hash-floor.mjs <vault-dir>\n');
  process.exit(2);
}
const started = performance.now();
const files = [];
const stack = [root];
while (stack.length) {
  const dir = stack.pop();
  for (const d of await readdir(dir, { withFileTypes: true })) {
    if (d.name.startsWith('.')) continue;
    if (d.isDirectory()) stack.push(join(dir, d.name));
    else if (d.name.endsWith('.md')) files.push(join(dir, d.name));
  }
}
let next = 0;
let bytes = 0;
const worker = async () => {
  while (next < files.length) {
    const data = await readFile(files[next++]);
    bytes += data.length;
    createHash('sha256').update(data).digest('hex');
  }
};
await Promise.all(Array.from({ length: 32 }, worker));
process.stdout.write(`${JSON.stringify({ files: files.length, bytes, ms: performance.now() - started })}\n`);
