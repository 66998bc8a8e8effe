import {
  capital,
  createRng,
  HEADINGS,
  NAME_WORDS,
  type Rng,
  TOPICS,
  UNICODE_NAMES,
  WORDS,
} from './vault-text.ts';

/** One note of a planned vault. */
export interface PlannedNote {
  /** Vault-relative POSIX path, `.md` included. */
  path: string;
  folder: string;
  stem: string;
  /** The level-2 headings the note will have, so `[[Name#Heading]]` links can hit them. */
  headings: string[];
}

/** Every note's place and name, decided before any text is written (links need the names). */
export interface VaultPlan {
  notes: PlannedNote[];
  /** Indexes of the folder-mates of each folder. */
  byFolder: Map<string, number[]>;
  /** Indexes of the heavily linked notes (maps of content, index pages). */
  hubs: number[];
  /** Lowercased stem -> how many notes share it (shared stems are linked by path). */
  stemCount: Map<string, number>;
}

const folderName = (rng: Rng, level: number): string => {
  if (level === 0) return rng.pick(TOPICS);
  const w = rng.pick(NAME_WORDS);
  return rng.chance(0.3) ? `${w} ${capital(rng.pick(NAME_WORDS).toLowerCase())}` : w;
};

const dateStem = (rng: Rng): string => {
  const m = String(rng.int(1, 12)).padStart(2, '0');
  const d = String(rng.int(1, 28)).padStart(2, '0');
  return `${rng.int(2019, 2024)}-${m}-${d}`;
};

/**
 * A file name. Most are unique across the vault, as in real vaults; about 2% are the
 * per-folder names that many folders share (Index, README, ...), which makes links by
 * name ambiguous and exercises resolution by path.
 */
const NAME_TAIL = WORDS.filter((w) => w.length >= 5 && !w.includes("'"));

const noteStem = (rng: Rng, folder: string): string => {
  const r = rng.next();
  if (r < 0.01) return `${rng.pick(UNICODE_NAMES)} ${rng.pick(NAME_TAIL)}`;
  if (r < 0.03) return rng.pick(['Index', 'Overview', 'README', 'Inbox']);
  if (r < 0.13 || /^(Journal|Meetings)\b/.test(folder)) {
    return `${dateStem(rng)} ${rng.pick(NAME_WORDS)}`;
  }
  const words = [rng.pick(NAME_WORDS)];
  const n = rng.int(2, 4);
  for (let i = 1; i < n; i++) words.push(rng.pick(NAME_TAIL));
  return words.join(' ');
};

/** Adds ` 2`, ` 3`, ... until `name` is not in `taken` (case-insensitively), then takes it. */
const unique = (name: string, taken: Set<string>): string => {
  let out = name;
  for (let i = 2; taken.has(out.toLowerCase()); i++) out = `${name} ${i}`;
  taken.add(out.toLowerCase());
  return out;
};

/**
 * Plans a vault of `count` notes: folders 2 to 4 levels deep with 10 to 30 notes each,
 * Obsidian-like file names (some shared across folders, a few non-ASCII).
 */
export function planVault(count: number, seed: number): VaultPlan {
  const rng = createRng(seed);
  const notes: PlannedNote[] = [];
  const byFolder = new Map<string, number[]>();
  const folders = new Set<string>();
  while (notes.length < count) {
    const depth = rng.int(2, 4);
    const segs: string[] = [];
    for (let level = 0; level < depth; level++) segs.push(folderName(rng, level));
    const base = segs.join('/');
    const folder = unique(base, folders);
    const size = Math.min(count - notes.length, rng.int(10, 30));
    const taken = new Set<string>();
    const members: number[] = [];
    for (let i = 0; i < size; i++) {
      const stem = unique(noteStem(rng, folder), taken);
      const headings = new Set<string>();
      const h = rng.int(2, 5);
      while (headings.size < h) headings.add(rng.pick(HEADINGS));
      members.push(notes.length);
      notes.push({ path: `${folder}/${stem}.md`, folder, stem, headings: [...headings] });
    }
    byFolder.set(folder, members);
  }
  const hubs: number[] = [];
  const hubCount = Math.max(5, Math.round(count / 200));
  for (let i = 0; i < hubCount; i++) hubs.push(rng.int(0, count - 1));
  const stemCount = new Map<string, number>();
  for (const n of notes) stemCount.set(n.stem.toLowerCase(), (stemCount.get(n.stem.toLowerCase()) ?? 0) + 1);
  return { notes, byFolder, hubs, stemCount };
}
