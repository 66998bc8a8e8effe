/**
 * `npx tsx bench/integrations.ts` (issue 23): what the section PATCH, the tag counts and the change
 * feed cost, each against a baseline measured in the same run, in-process (`app.request`, no socket)
 * over a filesystem vault in a temp dir. Prints a markdown section for BENCHMARKS.md.
 *
 * Env: BENCH_ROUNDS (default 30), BENCH_TAG_NOTES (default 10000).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../adapters/http/app.ts';
import { fsNoteStore } from '../adapters/store/fs-note-store.ts';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { createChangeFeed } from '../core/notes/change-feed.ts';
import { applySectionPatch } from '../core/notes/section-patch.ts';
import { createNoteService } from '../core/notes/service.ts';
import { machineInfo } from './report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const TAG_NOTES = Number(process.env.BENCH_TAG_NOTES ?? 10_000);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const time = async (fn: () => unknown | Promise<unknown>, rounds = ROUNDS): Promise<number> => {
  for (let i = 0; i < Math.min(5, rounds); i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return median(out);
};
const ms = (x: number) => (x < 1 ? x.toFixed(3) : x.toFixed(2));

/** A journal-like note of about `kb` KiB: frontmatter, days with sections, code, lists. */
function journal(kb: number): string {
  const parts = ['---', 'title: Journal', 'tags: [daily, log]', 'status: open', '---', '# Journal', ''];
  let day = 0;
  while (parts.join('\n').length < kb * 1024) {
    day += 1;
    parts.push(`## Day ${day}`, '', `Notes for day ${day} with a [[link]] and #tag${day % 7}.`, '');
    parts.push('```md', '## Not a heading', '```', '', '- item one', `- item two ^b${day}`, '');
  }
  parts.push('## Today', '', '- first', '');
  return parts.join('\n');
}

const rows: string[] = [];
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const tmp = await mkdtemp(join(tmpdir(), 'quire-bench-i23-'));
try {
  // 1. Section PATCH against what a client does without it: GET the note, edit, PUT with If-Match.
  for (const kb of [2, 32]) {
    const dir = join(tmp, `v${kb}`);
    const store = fsNoteStore({ dir, watch: false });
    const notes = createNoteService({ store, clock, logger: quiet });
    await notes.load();
    await notes.create('journal.md', journal(kb));
    const app = createApp({ notes, version: 'bench', clock, logger: quiet });
    const url = 'http://bench/api/v1/notes/journal.md';
    const json = { 'content-type': 'application/json' };
    let n = 0;
    const patch = await time(async () => {
      const body = JSON.stringify({
        operation: 'append',
        target: { type: 'heading', path: ['Journal', 'Today'] },
        content: `- line ${n++}`,
      });
      const r = await app.request(url, { method: 'PATCH', headers: json, body });
      if (r.status !== 200) throw new Error(`PATCH ${r.status}`);
      await r.arrayBuffer();
    });
    const getPut = await time(async () => {
      const g = (await (await app.request(url)).json()) as { data: { content: string; checksum: string } };
      const content = g.data.content.replace('- first\n', `- first\n- line ${n++}\n`);
      const r = await app.request(url, {
        method: 'PUT',
        headers: { ...json, 'if-match': `"${g.data.checksum}"` },
        body: JSON.stringify({ content }),
      });
      if (r.status !== 200) throw new Error(`PUT ${r.status}`);
      await r.arrayBuffer();
    });
    log(`patch ${kb} KiB: ${ms(patch)} ms, get+put ${ms(getPut)} ms`);
    rows.push(
      `| Append under a heading, ${kb} KiB note (fs vault) | PATCH ${ms(patch)} ms | GET + PUT ${ms(getPut)} ms | ${(getPut / patch).toFixed(2)}× |`,
    );
  }

  // 2. The pure transform: a heading target (a markdown parse) against a document target (none).
  const big = journal(64);
  const heading = await time(() =>
    applySectionPatch(big, {
      operation: 'append',
      target: { type: 'heading', path: ['Journal', 'Today'] },
      content: 'x',
    }),
  );
  const doc = await time(() =>
    applySectionPatch(big, { operation: 'append', target: { type: 'document' }, content: 'x' }),
  );
  const fm = await time(() =>
    applySectionPatch(big, {
      operation: 'replace',
      target: { type: 'frontmatter', key: 'status' },
      content: 'done',
    }),
  );
  rows.push(
    `| Transform only, 64 KiB note: heading target | ${ms(heading)} ms | document target ${ms(doc)} ms | ${(heading / doc).toFixed(0)}× |`,
  );
  rows.push(
    `| Transform only, 64 KiB note: frontmatter key | ${ms(fm)} ms | document target ${ms(doc)} ms | ${(fm / doc).toFixed(1)}× |`,
  );

  // 3. Tags over many notes: the first answer after a change (counted) against the cached one.
  const files: Record<string, string> = {};
  for (let i = 0; i < TAG_NOTES; i++)
    files[`n/${i}.md`] = `---\ntags: [t${i % 50}, shared]\n---\n# N${i}\n#x${i % 300}\n`;
  const tagNotes = createNoteService({ store: memoryNoteStore({ files }), clock, logger: quiet });
  await tagNotes.load();
  const tagApp = createApp({ notes: tagNotes, version: 'bench', clock, logger: quiet });
  const getTags = async () => (await tagApp.request('http://bench/api/v1/tags')).arrayBuffer();
  let k = 0;
  const counted = await time(async () => {
    await tagNotes.update('n/0.md', { content: `# N0 ${k++}\n#x0\n` });
    await getTags();
  }, 50);
  const writeOnly = await time(async () => {
    await tagNotes.update('n/0.md', { content: `# N0 ${k++}\n#x0\n` });
  }, 50);
  const cached = await time(getTags);
  rows.push(
    `| \`GET /tags\`, ${TAG_NOTES.toLocaleString('en')} notes: first after a write (minus the write) | ${ms(counted - writeOnly)} ms | cached ${ms(cached)} ms | ${((counted - writeOnly) / cached).toFixed(0)}× |`,
  );

  // 4. The change feed: a resume from the middle of a full ring against an empty answer.
  let push: (e: never) => void = () => {};
  const feedNotes = {
    subscribe: (fn: (e: never) => void) => {
      push = fn;
      return () => {};
    },
    checksumOf: () => 'c',
  };
  const feed = createChangeFeed({ notes: feedNotes, now: () => 1_000, size: 10_000 });
  for (let i = 0; i < 10_000; i++) push({ type: 'updated', path: `p${i}.md`, external: false } as never);
  const mid = feed.last() - 100;
  const resume = await time(() => feed.after(mid), 2000);
  const none = await time(() => feed.after(feed.last()), 2000);
  rows.push(
    `| Feed resume from a full ring (10,000): the last 100 events | ${ms(resume)} ms | nothing new ${ms(none)} ms | ${(resume / none).toFixed(1)}× |`,
  );
} finally {
  await rm(tmp, { recursive: true, force: true });
}

const info = machineInfo({
  command: 'npx tsx bench/integrations.ts',
  load: { connections: 1, duration: 0, warmup: 0 },
  coldRuns: 0,
  warmRuns: ROUNDS,
  updates: 0,
});
process.stdout.write(
  [
    `## Section PATCH, tags and change feed (issue 23), ${info.date.slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${info.cpu}, ${info.nproc} cores (shared), ${info.ramGiB} GiB, Node ${info.node}, commit ${info.commit}. Command: \`${info.command}\`. Medians of ${ROUNDS} rounds after 5 warm-up rounds, in-process (\`app.request\`).`,
    '',
    '| What | Measured | Baseline (same run) | Ratio |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
