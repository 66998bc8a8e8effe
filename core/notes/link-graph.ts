import { basename, dirname, joinRelative, stem } from '../paths.ts';
import { intern } from './intern.ts';
import type { LinkKind } from './markdown/types.ts';

/** A link as the index keeps it: what was written, plus where it points now. */
export interface LinkRef {
  target: string;
  kind: LinkKind;
  heading?: string;
  alias?: string;
}

/** An outgoing link with its current resolution (`path` null while unresolved). */
export interface ResolvedLink extends LinkRef {
  path: string | null;
}

/**
 * One note's outgoing links, compact: the link objects are shared with the index entry (never
 * copied), `paths[i]` is where `links[i]` points now (null while unresolved). A link that gains a
 * field (e.g. a target kind) carries it here for free.
 */
interface Source {
  links: readonly LinkRef[];
  paths: (string | null)[];
}

/** The paths a scoped key sees; a resolution given one picks among those only. */
export type See = (path: string) => boolean;

const lower = (s: string): string => s.toLowerCase();

/** The stem a link would match by file name: `folder/My Note.md` -> `my note`. */
function linkKey(target: string): string {
  let end = target.length;
  while (end > 0 && target.charCodeAt(end - 1) === 47) end--;
  return lower(stem(end === target.length ? target : target.slice(0, end)));
}

/** True when a link target names a file other than a note (`x.png`, `a/report.pdf`). */
export function isFileName(target: string): boolean {
  const name = basename(target.replace(/\/+$/, ''));
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 && name.slice(dot).toLowerCase() !== '.md';
}

/**
 * A multiset of paths: an array while small (a Set or Map costs several times an array of one or
 * two strings), counts in a Map once large (a hub note linked from thousands stays O(1) a change).
 */
type Bag = string[] | Map<string, number>;
const BAG_ARRAY_MAX = 32;

const addTo = <K>(m: Map<K, Bag>, k: K, v: string) => {
  const a = m.get(k);
  if (!a) m.set(k, [v]);
  else if (Array.isArray(a)) {
    a.push(v);
    if (a.length > BAG_ARRAY_MAX) {
      const counts = new Map<string, number>();
      for (const x of a) counts.set(x, (counts.get(x) ?? 0) + 1);
      m.set(k, counts);
    }
  } else a.set(v, (a.get(v) ?? 0) + 1);
};
const removeFrom = <K>(m: Map<K, Bag>, k: K, v: string) => {
  const a = m.get(k);
  if (!a) return;
  if (Array.isArray(a)) {
    const i = a.indexOf(v);
    if (i < 0) return;
    if (a.length === 1) m.delete(k);
    else a.splice(i, 1);
    return;
  }
  const n = a.get(v);
  if (n === undefined) return;
  if (n > 1) a.set(v, n - 1);
  else {
    a.delete(v);
    if (a.size === 0) m.delete(k);
  }
};
/** True when some path of a bag passes `test`. */
const someOf = (a: Bag | undefined, test: (p: string) => boolean): boolean => {
  if (!a) return false;
  for (const p of Array.isArray(a) ? a : a.keys()) if (test(p)) return true;
  return false;
};
/** The distinct paths of a bag. */
const members = (a: Bag | undefined): string[] =>
  !a ? [] : Array.isArray(a) ? [...new Set(a)] : [...a.keys()];

/** One element per distinct target, in document order. */
export function distinctLinks(links: readonly LinkRef[]): LinkRef[] {
  const seen = new Set<string>();
  const out: LinkRef[] = [];
  for (const l of links) {
    if (!l.target || seen.has(l.target)) continue;
    seen.add(l.target);
    // Targets and kinds repeat across notes: one copy each (core/notes/intern.ts).
    const ref: LinkRef = { target: intern(l.target), kind: intern(l.kind) as LinkRef['kind'] };
    if (l.heading !== undefined) ref.heading = intern(l.heading);
    if (l.alias !== undefined) ref.alias = intern(l.alias);
    out.push(ref);
  }
  return out;
}

/** `links` itself when its targets are already distinct and non-empty (an index entry's are). */
function distinctShared(links: readonly LinkRef[]): readonly LinkRef[] {
  const seen = new Set<string>();
  for (const l of links) {
    if (!l.target || seen.has(l.target)) return distinctLinks(links);
    seen.add(l.target);
  }
  return links;
}

/** Where links point: the vault's note paths and other files, by Obsidian's rules. */
class Resolver {
  /** Paths by file-name stem. */
  readonly byStem = new Map<string, Bag>();
  readonly byLowerPath = new Map<string, string>();
  /** The vault's other files (attachments), by lower-case path, and by lower-case file name. */
  readonly files = new Map<string, string>();
  readonly filesByName = new Map<string, Bag>();

  /** `notes`: the graph's notes (a path is a note when it is a key). */
  constructor(private readonly notes: ReadonlyMap<string, unknown>) {}

  private findPath(candidate: string, see?: See): string | null {
    if (see === undefined) {
      if (this.notes.has(candidate)) return candidate;
      return this.byLowerPath.get(lower(candidate)) ?? null;
    }
    if (this.notes.has(candidate) && see(candidate)) return candidate;
    // Paths differing in case only: the first one the key sees.
    const l = lower(candidate);
    for (const p of members(this.byStem.get(linkKey(candidate)))) if (lower(p) === l && see(p)) return p;
    return null;
  }

  /** The file a link names: the exact vault path, then relative to the note's folder, then by file name. */
  private resolveFile(from: string, t: string, see?: See): string | null {
    const exact = this.files.get(lower(t));
    if (exact && (see === undefined || see(exact))) return exact;
    const rel = joinRelative(dirname(from), t);
    const hit = rel ? this.files.get(lower(rel)) : undefined;
    if (hit && (see === undefined || see(hit))) return hit;
    if (t.startsWith('../') || t.startsWith('./')) return null;
    return shortestMatch(this.filesByName.get(lower(basename(t))), t, see);
  }

  /**
   * Where `link` written in note `from` points right now; null when nothing matches. With `see`,
   * among the paths it sees only: a hidden path neither wins nor shadows a visible one.
   */
  resolve(from: string, link: LinkRef, see?: See): string | null {
    let t = link.target.trim();
    if (!t) return null;
    const markdown = link.kind === 'markdown';
    if (markdown && t.startsWith('/')) t = t.replace(/^\/+/, '');
    if (this.files.size && isFileName(t)) {
      const file = this.resolveFile(from, t, see);
      if (file) return file;
    }
    const candidate = lower(t).endsWith('.md') ? t : `${t}.md`;
    const dotted = candidate.startsWith('.') || candidate.includes('/.');
    const exact =
      !dotted || !candidate.split('/').some((s) => s === '..' || s === '.')
        ? this.findPath(candidate, see)
        : null;
    if (exact) return exact;
    if (markdown) {
      const rel = joinRelative(dirname(from), candidate);
      if (rel) {
        const hit = this.findPath(rel, see);
        if (hit) return hit;
      }
    }
    if (candidate.startsWith('../') || candidate.startsWith('./')) return null;
    return shortestMatch(this.byStem.get(linkKey(candidate)), candidate, see);
  }

  /** Makes `path` known by its stem and lower-case path. */
  addNote(path: string): void {
    addTo(this.byStem, linkKey(path), path);
    this.byLowerPath.set(lower(path), path);
  }

  /** Forgets `path`; another path differing in case only takes its lower-case place. */
  removeNote(path: string): void {
    removeFrom(this.byStem, linkKey(path), path);
    if (this.byLowerPath.get(lower(path)) === path) {
      this.byLowerPath.delete(lower(path));
      for (const p of members(this.byStem.get(linkKey(path))))
        if (lower(p) === lower(path)) this.byLowerPath.set(lower(p), p);
    }
  }

  /** Adds files; returns their stem keys, or none when every one was known. */
  addFiles(paths: readonly string[]): Set<string> {
    const keys = new Set<string>();
    for (const path of paths) {
      if (this.files.get(lower(path)) === path) continue;
      this.files.set(lower(path), path);
      addTo(this.filesByName, lower(basename(path)), path);
      keys.add(linkKey(path));
    }
    return keys;
  }

  /** Forgets files; returns the stem keys of those that were known. */
  removeFiles(paths: readonly string[]): Set<string> {
    const keys = new Set<string>();
    for (const path of paths) {
      const known = this.files.get(lower(path));
      if (known === undefined) continue;
      this.files.delete(lower(path));
      removeFrom(this.filesByName, lower(basename(known)), known);
      keys.add(linkKey(known));
    }
    return keys;
  }
}

/**
 * Of the paths in `bag`, the one `written` names by file name: ending with what was written when
 * it has folders, the shortest on a tie, then the first in order.
 */
function shortestMatch(bag: Bag | undefined, written: string, see?: See): string | null {
  if (!bag) return null;
  const matches = Array.isArray(bag) ? bag : bag.keys();
  const suffix = written.includes('/') ? `/${lower(written)}` : null;
  let best: string | null = null;
  for (const p of matches) {
    if (suffix && !`/${lower(p)}`.endsWith(suffix)) continue;
    if (see !== undefined && !see(p)) continue;
    if (best === null || p.length < best.length || (p.length === best.length && p < best)) best = p;
  }
  return best;
}

/**
 * The distinct stem keys of a note's links (computed when needed, not kept per note); `memo`
 * (a load's) keeps each target's key once: targets repeat across notes.
 */
function keysOf(links: readonly LinkRef[], memo?: Map<string, string>): Set<string> {
  if (!memo) return new Set(links.map((l) => linkKey(l.target)));
  const out = new Set<string>();
  for (const l of links) {
    let k = memo.get(l.target);
    if (k === undefined) {
      k = linkKey(l.target);
      memo.set(l.target, k);
    }
    out.add(k);
  }
  return out;
}

const EMPTY: Source = { links: [], paths: [] };

/**
 * The vault's link graph with Obsidian-style resolution (`Resolver`). Changing one note costs work
 * proportional to its own links plus the links that name its file (by stem), never the vault.
 */
export class LinkGraph {
  private readonly sources = new Map<string, Source>();
  private readonly names = new Resolver(this.sources);
  /**
   * Notes with a link of each stem key, once per note. Only a change of the set of paths reads it
   * (links naming a new or removed file re-resolve), so a bulk load leaves it to be built after
   * (`refsPending`): by `refsSteps` in slices once the index serves, or at once by the first change.
   */
  private refsByKey = new Map<string, Bag>();
  private refsPending = false;
  /** Linking notes per target, once per link that resolves there (a multiset). */
  private readonly backlinks = new Map<string, Bag>();

  /** Resolution of one link as if written in `from` (bound: it may be passed around). */
  readonly resolve = (from: string, link: LinkRef, see?: See): string | null =>
    this.names.resolve(from, link, see);

  private detach(path: string, src: Source, changed: Set<string>): void {
    for (const p of src.paths) {
      if (!p) continue;
      removeFrom(this.backlinks, p, path);
      changed.add(p);
    }
  }

  /** `changed` null: a bulk load, where nothing was read before (no set to fill and clear per note). */
  private attach(path: string, src: Source, changed: Set<string> | null): void {
    for (const p of src.paths) {
      if (!p) continue;
      addTo(this.backlinks, p, path);
      changed?.add(p);
    }
  }

  private reresolve(key: string, changed: Set<string>): void {
    const refs = this.refsByKey.get(key);
    if (!refs) return;
    for (const sp of members(refs)) {
      const src = this.sources.get(sp);
      if (!src) continue;
      const next = src.links.map((l, i) => (linkKey(l.target) === key ? this.resolve(sp, l) : src.paths[i]!));
      if (next.every((p, i) => p === src.paths[i])) continue;
      this.detach(sp, src, changed);
      src.paths = next;
      this.attach(sp, src, changed);
      changed.add(sp);
    }
  }

  /** Makes `path` known as a link target (no links of its own yet). */
  private addPath(path: string): void {
    this.names.addNote(path);
    this.sources.set(path, EMPTY);
  }

  /** Resolves and records the outgoing links of a known `path` (its old ones already detached). */
  private setLinks(
    path: string,
    links: readonly LinkRef[],
    changed: Set<string> | null,
    memo?: Map<string, string | null>,
    given?: (string | null)[] | null,
    keyMemo?: Map<string, string>,
  ): void {
    // Resolutions given (a snapshot's) were made for these very links, which an entry keeps
    // distinct (`toEntry`): no Set per note to check it again.
    const known = !!given && given.length === links.length;
    const shared = known ? links : distinctShared(links);
    const src: Source = {
      links: shared,
      paths: known
        ? given
        : shared.map((l) => {
            // Only a markdown link's resolution depends on the note it is written in.
            if (!memo || l.kind === 'markdown') return this.resolve(path, l);
            let p = memo.get(l.target);
            if (p === undefined) {
              p = this.resolve(path, l);
              memo.set(l.target, p);
            }
            return p;
          }),
    };
    if (!this.refsPending) for (const k of keysOf(shared, keyMemo)) addTo(this.refsByKey, k, path);
    this.sources.set(path, src);
    this.attach(path, src, changed);
  }

  /** The stem keys of every note's links, in steps (a few hundred notes each). */
  private *refsOf(into: Map<string, Bag>): Generator<void> {
    // Targets repeat across notes: each one's key is computed once. A note's distinct keys are
    // gathered in one reused array (a note has a few: no Set per note, 100,000 of them at 100k).
    const keyMemo = new Map<string, string>();
    const keys: string[] = [];
    let i = 0;
    for (const [path, src] of this.sources) {
      if (src.links.length > 16) {
        // A note of many links (a 200,000-link index note): a Set, not a scan per link.
        for (const k of keysOf(src.links, keyMemo)) addTo(into, k, path);
        if ((++i & 511) === 0) yield;
        continue;
      }
      for (const l of src.links) {
        let k = keyMemo.get(l.target);
        if (k === undefined) {
          k = linkKey(l.target);
          keyMemo.set(l.target, k);
        }
        if (!keys.includes(k)) keys.push(k);
      }
      for (const k of keys) addTo(into, k, path);
      keys.length = 0;
      if ((++i & 511) === 0) yield;
    }
  }

  /** Builds what a bulk load left to build, at once: before anything reads or changes it. */
  private ensureRefs(): void {
    if (!this.refsPending) return;
    const built = new Map<string, Bag>();
    for (const _ of this.refsOf(built));
    this.refsByKey = built;
    this.refsPending = false;
  }

  /**
   * Adds or replaces a note and its outgoing links. Returns every path whose links or
   * backlinks changed (including `path`).
   */
  set(path: string, links: readonly LinkRef[]): Set<string> {
    this.ensureRefs();
    const changed = new Set<string>([path]);
    const old = this.sources.get(path);
    if (old) {
      this.detach(path, old, changed);
      for (const k of keysOf(old.links)) removeFrom(this.refsByKey, k, path);
    } else {
      this.addPath(path);
      this.reresolve(linkKey(path), changed);
    }
    this.setLinks(path, links, changed);
    return changed;
  }

  /**
   * Adds many notes that are not in the graph yet, in one pass: every path is known before any
   * link resolves, so nothing needs re-resolving.
   */
  load(
    notes: readonly (readonly [string, readonly LinkRef[]])[],
    resolved?: (i: number) => (string | null)[] | null | undefined,
  ): void {
    for (const _ of this.loadSteps(notes, resolved));
  }

  /**
   * `load` a few hundred notes a step, so a caller can yield to the event loop between steps
   * (nothing is read from the graph until the last step is taken). An array `resolved` gives is
   * the graph's from then on (a new one per call: it is not copied).
   */
  *loadSteps(
    notes: readonly (readonly [string, readonly LinkRef[]])[],
    resolved?: (i: number) => (string | null)[] | null | undefined,
  ): Generator<void> {
    // Built after the load (`refsSteps`, or the first change), for every note at once.
    this.refsPending = true;
    for (let i = 0; i < notes.length; i++) {
      const path = notes[i]![0];
      if (!this.sources.has(path)) this.addPath(path);
      if ((i & 1023) === 1023) yield;
    }
    // Nothing changes while loading: each distinct wiki-link target resolves once.
    const memo = new Map<string, string | null>();
    const keyMemo = new Map<string, string>();
    for (let i = 0; i < notes.length; i++) {
      const [path, links] = notes[i]!;
      // Resolutions known (a snapshot of these very notes and files) are taken as they are.
      this.setLinks(path, links, null, memo, resolved?.(i), keyMemo);
      if ((i & 255) === 255) yield;
    }
  }

  /**
   * Builds what a bulk load left to build (the notes naming each stem key), a few hundred notes
   * a step; a change meanwhile builds it at once and ends this.
   */
  *refsSteps(): Generator<void> {
    if (!this.refsPending) return;
    const built = new Map<string, Bag>();
    for (const _ of this.refsOf(built)) {
      yield;
      if (!this.refsPending) return;
    }
    this.refsByKey = built;
    this.refsPending = false;
  }

  /** Removes a note; links to it re-resolve (to another note of that name, or to null). */
  remove(path: string): Set<string> {
    this.ensureRefs();
    const changed = new Set<string>();
    const src = this.sources.get(path);
    if (!src) return changed;
    this.detach(path, src, changed);
    for (const k of keysOf(src.links)) removeFrom(this.refsByKey, k, path);
    this.sources.delete(path);
    this.names.removeNote(path);
    this.reresolve(linkKey(path), changed);
    this.backlinks.delete(path);
    changed.delete(path);
    return changed;
  }

  /**
   * Makes the vault's files (attachments) known as link targets; links naming them re-resolve.
   * Returns every note whose links or backlinks changed.
   */
  addFiles(paths: readonly string[]): Set<string> {
    this.ensureRefs();
    const changed = new Set<string>();
    for (const k of this.names.addFiles(paths)) this.reresolve(k, changed);
    for (const p of paths) changed.delete(p);
    return changed;
  }

  /** Forgets files; links to them re-resolve (to another file of that name, or to null). */
  removeFiles(paths: readonly string[]): Set<string> {
    this.ensureRefs();
    const changed = new Set<string>();
    for (const k of this.names.removeFiles(paths)) this.reresolve(k, changed);
    for (const p of paths) {
      changed.delete(p);
      this.backlinks.delete(p);
    }
    return changed;
  }

  /** True when `path` is a known file (not a note). */
  hasFile(path: string): boolean {
    return this.names.files.get(lower(path)) === path;
  }

  /** Known files under folder `prefix` ('' for all). */
  filesUnder(prefix: string): string[] {
    const out: string[] = [];
    for (const p of this.names.files.values()) if (!prefix || p.startsWith(`${prefix}/`)) out.push(p);
    return out;
  }

  /** How many known files share the file name of `path`. */
  fileNameCount(name: string): number {
    return members(this.names.filesByName.get(lower(basename(name)))).length;
  }

  /** Outgoing links of `path` and where each points (parallel arrays, not copies; do not change them). */
  resolutionsOf(path: string): { links: readonly LinkRef[]; paths: readonly (string | null)[] } {
    return this.sources.get(path) ?? EMPTY;
  }

  /** Outgoing links of `path` with their resolution (empty when unknown); a new array each call. */
  linksOf(path: string): ResolvedLink[] {
    const src = this.sources.get(path);
    return src ? src.links.map((l, i) => ({ ...l, path: src.paths[i] ?? null })) : [];
  }

  /** Paths of the notes linking to `path`, sorted. */
  backlinksOf(path: string): string[] {
    return members(this.backlinks.get(path)).sort();
  }

  /**
   * The notes linking to `path` as a key that sees only `see` finds them, sorted: the visible
   * ones linking there now, and the visible ones whose link to a hidden note resolves to `path`
   * among the notes the key sees. Null when that is the visible part of `backlinksOf` (always
   * when no note sharing the stem key is hidden: the usual case, and nothing to compute).
   */
  backlinksSeen(path: string, see: See): string[] | null {
    const key = linkKey(path);
    // Only a link whose winner is hidden resolves anew, and that winner shares the stem key.
    if (!someOf(this.names.byStem.get(key), (p) => !see(p))) return null;
    this.ensureRefs();
    let extra: string[] | null = null;
    const refs = this.refsByKey.get(key);
    const linking = refs === undefined ? [] : Array.isArray(refs) ? refs : refs.keys();
    for (const sp of linking) {
      if (!see(sp) || extra?.includes(sp)) continue;
      const src = this.sources.get(sp);
      if (!src) continue;
      for (let i = 0; i < src.links.length; i++) {
        const p = src.paths[i];
        if (p == null || p === path || see(p)) continue;
        const l = src.links[i]!;
        if (linkKey(l.target) === key && this.resolve(sp, l, see) === path) {
          extra ??= [];
          extra.push(sp);
          break;
        }
      }
    }
    if (extra === null) return null;
    return [...new Set([...members(this.backlinks.get(path)).filter(see), ...extra])].sort();
  }

  /** How many notes share the file name stem of `path`. */
  stemCount(name: string): number {
    return members(this.names.byStem.get(lower(stem(basename(name))))).length;
  }
}

/** A new, empty link graph. */
export function createLinkGraph(): LinkGraph {
  return new LinkGraph();
}
