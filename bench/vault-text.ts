/** Seeded randomness and word material for the benchmark vault generator. No Math.random. */

/** A deterministic PRNG (mulberry32) with the helpers the generator needs. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** Creates a PRNG from a 32-bit seed. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T,
  };
}

/** Mixes a seed and an index into a new seed, so each note has its own stream. */
export function subSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

const split = (s: string): string[] => s.trim().split(/\s+/);

export const WORDS = split(`
  the of and to in is that it for as with was on be by this are from at or an but not have
  which one all their there been has more will would about if can when so what into out up
  other some time only them these may then do its also over new than first two like after
  most where through back much before good well way down should because each just those
  people how too little state world very year still own see men work long get here between
  both life being under never day same another know while last might great old off come
  since against go came right used take three small number always next without place around
  however home part found thought went general high upon school every don't does got left
  project plan meeting review design draft idea research budget team goal task release
  feature client vendor schedule risk milestone summary decision question answer problem
  method result data model system process service library module server client index cache
  network storage query latency throughput memory thread kernel build deploy config token
  garden reading writing journal habit recipe travel family health exercise book chapter
  quote author theory history language music film article paper lecture course exam
  sprint backlog roadmap retro standup onboarding hiring interview contract invoice tax
  weather morning evening weekend coffee lunch dinner walk city river mountain forest
  migration schema endpoint request response header payload parser compiler runtime
`);

export const TOPICS = split(`
  Projects Areas Resources Archive Journal People Meetings Research Reading Writing Work
  Personal Ideas Health Finance Travel Recipes Engineering Design Product Marketing Sales
  Hiring Learning Courses Books Papers Clients Vendors Infrastructure Security Operations
  Planning Reviews Templates Inbox Garden Home Family Music Films Languages History Science
`);

export const NAME_WORDS = split(`
  Alpha Beta Gamma Delta Quarterly Annual Weekly Kickoff Retrospective Roadmap Budget
  Proposal Draft Review Launch Migration Onboarding Interview Summary Notes Ideas Plan
  Strategy Research Reading Design Architecture Incident Postmortem Backlog Release
  Client Vendor Contract Invoice Garden Travel Recipe Workout Habit Book Lecture Paper
  Index Overview Glossary Checklist Timeline Decision Question Experiment Prototype Spec
  Server Cache Search Graph Parser Storage Network Security Budgeting Hiring Coffee
`);

export const UNICODE_NAMES = ['Café Ideas', 'Résumé Draft', 'Zürich Trip', 'Naïve Bayes', '東京 Notes'];

export const HEADINGS = split(`
  Overview Details Background Context Summary Decisions Actions Risks References Questions
  Ideas Status Timeline Notes Results Follow-up
`);

export const TAGS = split(`
  project idea todo reading meeting research draft review journal work personal health
  finance travel recipe book paper learning design engineering ops security inbox someday
  status/active status/done status/blocked area/work area/home type/meeting type/reference
`);

const SENTENCE_ENDS = ['.', '.', '.', '?', '!'];

/** A sentence of `n` words with a capital letter and an end mark. */
export function sentence(rng: Rng, n: number): string {
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  const s = words.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + rng.pick(SENTENCE_ENDS);
}

/** Title-cases a word. */
export function capital(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}
