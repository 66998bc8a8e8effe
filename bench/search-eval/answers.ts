/**
 * The offline agent on the search evaluation's questions: how often the note its answer quotes
 * (source [1]) is one the judgements call relevant, beside search's hit@1 on the same questions
 * over the same note service. Also counts replies that show raw markup (`rawMarkup`), and, with
 * ANSWER_EVAL_MISSES=1, prints each question whose answer quotes another note.
 *
 * Vaults as for run.ts (SEARCH_EVAL_VAULTS, default /tmp/quire-search-eval). Run:
 * `npx tsx bench/search-eval/answers.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createAgent, localProvider } from '../../core/agent/agent.ts';
import { rawMarkup } from '../../core/notes/markdown/readable.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { readVault } from './vault.ts';

interface Question {
  q: string;
  kind: string;
  relevant: string[];
}
const here = fileURLToPath(new URL('.', import.meta.url));
const root = process.env.SEARCH_EVAL_VAULTS ?? '/tmp/quire-search-eval';
const SETS = ['obsidian-help', 'silverbullet'];

let n = 0;
let searchHit1 = 0;
let answerHit = 0;
let raw = 0;
const misses: string[] = [];
for (const set of SETS) {
  const dir = join(root, set);
  if (!existsSync(dir)) {
    process.stderr.write(`missing vault ${dir}: see docs/reference/search.md (Evaluation)\n`);
    process.exit(2);
  }
  const notes = createNoteService({
    store: memoryNoteStore({ files: readVault(dir) }),
    state: memoryStateStore(),
    clock: { now: () => Date.now() },
  });
  await notes.load();
  const agent = createAgent({ notes, clock: { now: () => Date.now() }, provider: localProvider() });
  const questions = JSON.parse(readFileSync(join(here, `${set}.json`), 'utf8')) as Question[];
  for (const q of questions) {
    n++;
    const top = (await notes.search(q.q, 1))[0]?.path;
    if (top && q.relevant.includes(top)) searchHit1++;
    const r = await agent.chat({ message: q.q });
    const cited = r.citations[0]?.path;
    if (cited && q.relevant.includes(cited)) answerHit++;
    else misses.push(`${set} [${q.kind}] ${q.q} -> ${cited ?? '(none)'} (search: ${top ?? '(none)'})`);
    const bad = rawMarkup(r.reply);
    if (bad.length) {
      raw++;
      if (process.env.ANSWER_EVAL_RAW) process.stdout.write(`RAW ${q.q}: ${bad.join(', ')}\n${r.reply}\n\n`);
    }
  }
}
const f = (x: number) => (x / n).toFixed(2);
process.stdout.write(
  `${n} questions: answer cites a relevant note first ${f(answerHit)} (${answerHit}), search hit@1 ${f(searchHit1)} (${searchHit1}); replies with raw markup: ${raw}\n`,
);
if (process.env.ANSWER_EVAL_MISSES) process.stdout.write(`\nAnswer misses:\n${misses.join('\n')}\n`);
