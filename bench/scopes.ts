/**
 * What scoped keys cost (issue 29): the same requests in-process with a full key, a
 * capability-only key (read-only) and a folder-scoped key, over one generated vault.
 * `npx tsx bench/scopes.ts [notes=2000] [rounds=300]`; prints medians in microseconds and the
 * ratio to the full key measured in the same run.
 */
import { createApp } from '../adapters/http/app.ts';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../adapters/store/memory-state-store.ts';
import { createAuthenticator } from '../core/auth/authenticator.ts';
import { createAuthService } from '../core/auth/service.ts';
import { createNoteService } from '../core/notes/service.ts';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 300);
const clock = { now: () => Date.now() };
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const FOLDERS = ['Work', 'Work/private', 'Home', 'Archive', 'Projects'];
const files: Record<string, string> = {};
for (let i = 0; i < N; i++) {
  const f = FOLDERS[i % FOLDERS.length];
  const links = [1, 7, 31].map((d) => `[[n${(i + d) % N}]]`).join(' ');
  files[`${f}/n${i}.md`] = `# Note ${i}\n\n#t${i % 17} some words about topic ${i % 23} ${links}\n`;
}
const notes = createNoteService({ store: memoryNoteStore({ files }), clock, logger: silent });
await notes.load();
const auth = createAuthService({ state: memoryStateStore(), clock });
await auth.init();
const app = createApp({
  notes,
  version: 'bench',
  clock,
  logger: silent,
  authenticator: createAuthenticator({ mode: 'api-key', auth }),
  rateLimits: false,
  compress: false,
});
const keys = {
  full: (await auth.mintKey('full')).apiKey,
  readOnly: (await auth.mintKey('ro', { capabilities: ['notes:read', 'files:read'] })).apiKey,
  folder: (
    await auth.mintKey('work', {
      capabilities: ['notes:read'],
      folders: ['Work/'],
      exclude: ['Work/private/'],
    })
  ).apiKey,
};
const REQUESTS: [string, string][] = [
  ['list', '/api/v1/notes'],
  ['list page', '/api/v1/notes?limit=50&fields=path,title'],
  ['note', '/api/v1/notes/Work/n5.md'],
  ['search', '/api/v1/search?q=topic+words'],
  ['tree', '/api/v1/folders/tree'],
  ['tags', '/api/v1/tags'],
];
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`notes=${N} rounds=${ROUNDS} node=${process.version}`);
console.log('| request | full key µs | read-only µs (ratio) | folder key µs (ratio) |');
console.log('|---|---|---|---|');
for (const [name, url] of REQUESTS) {
  const out: Record<string, number> = {};
  for (const [k, key] of Object.entries(keys)) {
    const one = async () => {
      const res = await app.request(`http://x${url}`, { headers: { 'x-service-key': key } });
      if (res.status !== 200) throw new Error(`${name} ${k}: ${res.status}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 20; i++) await one();
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      await one();
      times.push((performance.now() - t) * 1000);
    }
    out[k] = median(times);
  }
  const r = (k: string) => `${out[k]!.toFixed(0)} (${(out[k]! / out.full!).toFixed(2)})`;
  console.log(`| ${name} | ${out.full!.toFixed(0)} | ${r('readOnly')} | ${r('folder')} |`);
}
