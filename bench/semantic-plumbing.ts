/**
 * Semantic search plumbing check (issue 26): a generated vault, the fake embeddings server of
 * the tests (hashed bag of words over real loopback HTTP: NOT a model), and questions made of
 * words drawn from one passage each. Reports, per mode, hit@5, MRR@10 and query latency with
 * lexical as the baseline of the same run, plus embedding throughput and stored bytes per
 * passage. Figures are labelled "fake provider, plumbing check only": they show the fusion,
 * storage and fallbacks work, not the quality a real model gives.
 *
 *   npx tsx bench/semantic-plumbing.ts            # 1,000 notes, 100 questions, writes bench/results/<date>-semantic-plumbing.md
 *   BENCH_SEMANTIC_NOTES=10000 BENCH_OUT=- npx tsx bench/semantic-plumbing.ts
 */
import { appendFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { openAiEmbeddings } from '../adapters/embeddings/openai-compatible.ts';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../adapters/store/memory-state-store.ts';
import { createNoteService } from '../core/notes/service.ts';
import { createRetrieval, type SearchMode } from '../core/search/retrieval.ts';
import { splitPassages } from '../core/search/semantic/passages.ts';
import { createSemanticIndex } from '../core/search/semantic/semantic-index.ts';
import { SEMANTIC_KEY } from '../core/search/semantic/store.ts';
import { startFakeEmbeddings } from '../tests/helpers/fake-embeddings.ts';
import { ensureVault, readVaultFiles } from './generate-vault.ts';
import { resultFile } from './report.ts';

const NOTES = Number(process.env.BENCH_SEMANTIC_NOTES ?? 1000);
const QUESTIONS = Number(process.env.BENCH_SEMANTIC_QUESTIONS ?? 100);
const OUT = process.env.BENCH_OUT ?? resultFile('semantic-plumbing');

let seed = 7;
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p99 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))] ?? 0;

const { dir } = await ensureVault('.bench-vaults', NOTES);
const { files } = await readVaultFiles(dir);
const fake = await startFakeEmbeddings();
const clock = { now: () => Date.now() };
const notes = createNoteService({ store: memoryNoteStore({ files }), clock });
await notes.load();
const state = memoryStateStore();
const semantic = createSemanticIndex({
  notes,
  embeddings: openAiEmbeddings({ url: fake.url, model: 'fake-bow' }),
  state,
});
const t0 = performance.now();
await semantic.start();
await semantic.sync();
const embedMs = performance.now() - t0;
const status = semantic.status();
const storedBytes = (await state.get(SEMANTIC_KEY))?.length ?? 0;
const retrieval = createRetrieval({ notes, semantic });

// Questions: 6 distinct words (4+ letters) of one passage of a random note, in random order.
const paths = Object.keys(files).sort();
const questions: { q: string; path: string }[] = [];
while (questions.length < QUESTIONS) {
  const path = paths[Math.floor(rand() * paths.length)]!;
  const note = await notes.get(path);
  const ps = splitPassages(path, note.title, note.content);
  const p = ps[Math.floor(rand() * ps.length)];
  const words = [...new Set(p?.text.toLowerCase().match(/\p{L}{4,}/gu) ?? [])];
  if (words.length < 6) continue;
  const pick: string[] = [];
  while (pick.length < 6) {
    const w = words.splice(Math.floor(rand() * words.length), 1)[0]!;
    pick.push(w);
  }
  questions.push({ q: pick.join(' '), path });
}

const rows: string[] = [];
const base: { ms: number } = { ms: 0 };
for (const mode of ['lexical', 'semantic', 'hybrid'] as SearchMode[]) {
  let hit5 = 0;
  let mrr = 0;
  const times: number[] = [];
  for (const { q } of questions.slice(0, 10)) await retrieval.search(q, { mode, limit: 10 }); // warm-up
  for (const { q, path } of questions) {
    const s = performance.now();
    const { hits } = await retrieval.search(q, { mode, limit: 10 });
    times.push(performance.now() - s);
    const rank = hits.findIndex((h) => h.path === path);
    if (rank >= 0 && rank < 5) hit5++;
    if (rank >= 0) mrr += 1 / (rank + 1);
  }
  const ms = median(times);
  if (mode === 'lexical') base.ms = ms;
  rows.push(
    `| ${mode} | ${(hit5 / questions.length).toFixed(2)} | ${(mrr / questions.length).toFixed(2)} | ${ms.toFixed(2)} | ${p99(times).toFixed(2)} | ${(ms / base.ms).toFixed(1)}x |`,
  );
}
semantic.stop();
await fake.close();

const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const report = [
  '',
  `## Semantic search plumbing check (issue 26) — ${new Date().toISOString().slice(0, 16)}Z`,
  '',
  `**Fake provider, plumbing check only** (hashed bag-of-words vectors from tests/helpers/fake-embeddings.ts over loopback HTTP, not a model). Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${load} (shared). Command: \`npx tsx bench/semantic-plumbing.ts\`. Vault: generated, ${NOTES} notes, ${status.total} passages; ${questions.length} questions of 6 words drawn from one passage each (lexical is the baseline of the same run; latency includes the query's embedding round trip for semantic and hybrid).`,
  '',
  '| mode | hit@5 | MRR@10 | query p50 ms | query p99 ms | p50 vs lexical |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  `Background embedding: ${status.total} passages in ${(embedMs / 1000).toFixed(1)} s (${Math.round(status.total / (embedMs / 1000))} passages/s, 32 per request); stored ${(storedBytes / 1024).toFixed(0)} KiB in \`${SEMANTIC_KEY}\`, ${Math.round(storedBytes / Math.max(1, status.total))} bytes per passage (256-dimension int8 vector in base64 plus its note entry).`,
  '',
].join('\n');
process.stdout.write(report);
if (OUT !== '-') await appendFile(OUT, report);
