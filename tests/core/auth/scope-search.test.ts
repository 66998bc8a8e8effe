/**
 * Search under a folder scope: what a key cannot see does not exist for it, not even
 * through a score. A differential property: for random small vaults, random folder scopes and
 * random queries (words, prefixes, typos, OR, exclusions, phrases, filters), a scoped key's search
 * answers exactly (paths, order, scores, titles, snippets) what an unscoped search over a vault
 * holding only its visible notes answers; before and after notes change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { inScope, type KeyScope } from '../../../core/auth/scope.ts';
import { scopedNotes, scopedRetrieval } from '../../../core/auth/scoped.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { Principal } from '../../../core/ports.ts';
import { createRetrieval } from '../../../core/search/retrieval.ts';
import { startFakeEmbeddings } from '../../helpers/fake-embeddings.ts';
import { SEED } from '../../security/arbitraries.ts';
import { HELP_VAULT, semanticVault } from '../search/semantic-fixtures.ts';

const clock = { now: () => Date.now() };

const FOLDERS = ['', 'Work/', 'Work/private/', 'Work/pub/', 'Home/', 'Home/Work/', 'Archive/'];
/** Words sharing prefixes and near one another in spelling, so prefixes and typos have choices. */
const WORDS = [
  'alpha',
  'alphabet',
  'alpine',
  'beta',
  'better',
  'bitter',
  'garden',
  'gardens',
  'gardening',
  'planning',
  'planing',
  'plant',
  'report',
  'reports',
  'review',
  'the',
];
const QUERIES = [
  ...WORDS,
  'alp',
  'gard',
  'pla',
  'rep',
  'reprot',
  'gardnes',
  'planting',
  'alpah',
  'bettr',
  'garden plant',
  'alpha OR beta',
  'review -plant',
  '"alpha beta"',
  'tag:x garden',
  'path:Work report',
  'better review gar',
  'Work',
];

const scopeArb: fc.Arbitrary<KeyScope> = fc.record({
  capabilities: fc.constant(['notes:read'] as KeyScope['capabilities']),
  folders: fc.uniqueArray(fc.constantFrom('Work/', 'Work/pub/', 'Home/', 'Archive/'), {
    minLength: 1,
    maxLength: 2,
  }),
  exclude: fc.uniqueArray(fc.constantFrom('Work/private/', 'Home/Work/', 'Archive/'), { maxLength: 2 }),
});

const noteArb = fc.record({
  folder: fc.constantFrom(...FOLDERS),
  name: fc.constantFrom(...WORDS.slice(0, 15)),
  n: fc.nat(3),
  title: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
  body: fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }),
  tag: fc.constantFrom('x', 'y', 'z'),
});
type Arb<A> = A extends fc.Arbitrary<infer T> ? T : never;
type NoteSpec = Arb<typeof noteArb>;

const pathOf = (x: NoteSpec) => `${x.folder}${x.name}${x.n}.md`;
const textOf = (x: NoteSpec) => `# ${x.title.join(' ')}\n\n#${x.tag} ${x.body.join(' ')}\n`;

/** Attachments, found by their file names (scored with the notes' word frequencies). */
const fileArb = fc.record({
  folder: fc.constantFrom(...FOLDERS),
  name: fc.constantFrom(...WORDS.slice(0, 15)),
});

/** A vault's files, as written, from note specs (the last spec of a path wins) and attachments. */
function filesOf(specs: NoteSpec[], attachments: Arb<typeof fileArb>[] = []): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of specs) files[pathOf(s)] = textOf(s);
  for (const a of attachments) files[`${a.folder}${a.name}-file.png`] = 'png';
  return files;
}

async function serviceOf(files: Record<string, string>) {
  const split = (md: boolean) =>
    Object.fromEntries(Object.entries(files).filter(([p]) => p.endsWith('.md') === md));
  const notes = createNoteService({
    store: memoryNoteStore({ files: split(true) }),
    files: memoryFileStore({ files: split(false) }),
    clock,
  });
  await notes.load();
  return notes;
}

/** How many attachment hits the comparisons saw (the property must exercise them). */
let files$ = 0;

/** The answers of a scoped key and of a vault of the visible notes alone, for the same queries. */
async function compare(
  full: Awaited<ReturnType<typeof serviceOf>>,
  files: Record<string, string>,
  scope: KeyScope,
  queries: string[],
  limit: number,
) {
  const p: Principal = { id: 'k', method: 'api-key', scope };
  const view = scopedNotes(full, p);
  const retrieval = scopedRetrieval(createRetrieval({ notes: full }), p);
  const visible = Object.fromEntries(Object.entries(files).filter(([path]) => inScope(scope, path)));
  const alone = await serviceOf(visible);
  const aloneRetrieval = createRetrieval({ notes: alone });
  for (const q of queries) {
    const got = await view.search(q, limit);
    const want = await alone.search(q, limit);
    expect(got, `search ${JSON.stringify(q)}`).toEqual(want);
    files$ += got.filter((h) => h.type === 'file').length;
    for (const h of got) expect(inScope(scope, h.path)).toBe(true);
    const r = await retrieval.search(q, { limit });
    expect(r, `retrieval ${JSON.stringify(q)}`).toEqual(await aloneRetrieval.search(q, { limit }));
  }
}

describe('a scoped key searches as a vault of its own (differential property)', () => {
  it('paths, order, scores and snippets equal those of a vault holding only the visible notes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(noteArb, { minLength: 1, maxLength: 14 }),
        scopeArb,
        fc.uniqueArray(fc.constantFrom(...QUERIES), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(noteArb, fc.boolean()), { maxLength: 4 }),
        fc.array(fileArb, { maxLength: 3 }),
        async (specs, scope, queries, limit, later, attachments) => {
          const files = filesOf(specs, attachments);
          const full = await serviceOf(files);
          await compare(full, files, scope, queries, limit);
          // Notes written or deleted after the first queries (hidden or not): the cached visible set and
          // statistics follow, and words new since the vocabulary was built are offered alike.
          for (const [s, del] of later) {
            const path = pathOf(s);
            if (files[path] !== undefined && del) {
              await full.remove(path);
              delete files[path];
              continue;
            }
            if (files[path] !== undefined) await full.update(path, { content: textOf(s) });
            else await full.create(path, textOf(s));
            files[path] = textOf(s);
          }
          if (later.length) await compare(full, files, scope, queries, limit);
        },
      ),
      // Seeded like the other properties (FUZZ_SEED reproduces another run): with a new seed each
      // run, the check below that attachments were really among the hits failed once in CI (10).
      { seed: SEED, numRuns: 150 },
    );
    expect(files$).toBeGreaterThan(10);
  });

  it('a hidden note holding the query word changes nothing a scoped key sees', async () => {
    const files: Record<string, string> = {
      'Work/plan.md': '# Plan\n\ngarden planning for spring\n',
      'Work/notes.md': '# Notes\n\nthe garden gate and the garden shed\n',
      'Home/x.md': '# X\n\nnothing here\n',
    };
    const scope: KeyScope = { capabilities: ['notes:read'], folders: ['Work/'] };
    const p: Principal = { id: 'k', method: 'api-key', scope };
    const before = await serviceOf(files);
    const beforeHits = await scopedNotes(before, p).search('garden', 10);
    // The same vault plus hidden notes full of the word, and a word only hidden notes hold.
    const more = { ...files };
    for (let i = 0; i < 20; i++) more[`Home/garden${i}.md`] = `# Garden ${i}\n\ngarden gardens hortensia\n`;
    const after = await serviceOf(more);
    const view = scopedNotes(after, p);
    expect(await view.search('garden', 10)).toEqual(beforeHits);
    expect(beforeHits.map((h) => h.path)).toEqual(['Work/notes.md', 'Work/plan.md']);
    // A prefix or misspelling of a hidden-only word finds nothing (it is not offered).
    expect(await view.search('hortens', 10)).toEqual([]);
    expect(await view.search('hortensai', 10)).toEqual([]);
    // The full vault does find it (the words exist; only the key cannot know).
    expect((await after.search('hortens', 10)).length).toBe(10);
    expect((await after.search('hortensai', 10)).length).toBe(10);
  });
});

describe('semantic and hybrid search under a folder scope', () => {
  it('rank as over a vault of the visible notes alone (lexical, semantic, hybrid, related)', async () => {
    const fake = await startFakeEmbeddings();
    const stops: (() => void)[] = [];
    const ready = async (files: Record<string, string>) => {
      const v = await semanticVault(fake.url, { files });
      stops.push(() => v.semantic.stop());
      await v.semantic.start();
      await v.semantic.sync();
      return v;
    };
    try {
      const files: Record<string, string> = {
        ...HELP_VAULT,
        'Plugins/Embed helper.md': '# Embed helper\n\nEmbed a PDF or an image in a note with a plugin.\n',
        'Private/pdf.md': '# PDF secrets\n\nembed pdf embed pdf document page height\n',
        'Private/canvas.md': '# Canvas notes\n\nCanvas lines connect notes and media; embed files.\n',
      };
      const full = await ready(files);
      const scopes: KeyScope[] = [
        { capabilities: ['notes:read'], folders: ['Plugins/'] },
        { capabilities: ['notes:read'], folders: ['Plugins/', 'Linking notes and files/'] },
        {
          capabilities: ['notes:read'],
          folders: ['Editing and formatting/', 'Getting started/', 'Plugins/'],
        },
      ];
      let compared = 0;
      for (const scope of scopes) {
        const p: Principal = { id: 'k', method: 'api-key', scope };
        const view = scopedRetrieval(full.retrieval, p);
        const visible = Object.fromEntries(Object.entries(files).filter(([path]) => inScope(scope, path)));
        const alone = await ready(visible);
        for (const q of ['how do I embed a pdf', 'canvas lines', 'sync devices', 'outline headings']) {
          for (const mode of ['lexical', 'semantic', 'hybrid'] as const) {
            const got = await view.search(q, { mode, limit: 5 });
            expect(got, `${mode} ${q}`).toEqual(await alone.retrieval.search(q, { mode, limit: 5 }));
            for (const h of got.hits) expect(inScope(scope, h.path)).toBe(true);
            compared += got.hits.length;
          }
        }
        for (const path of Object.keys(visible)) {
          expect(await view.related(path, 5), `related ${path}`).toEqual(
            await alone.retrieval.related(path, 5),
          );
        }
      }
      expect(compared).toBeGreaterThan(30);
    } finally {
      for (const s of stops) s();
      await fake.close();
    }
  });
});
