import { basename, dirname, joinRelative, stem } from '../paths.ts';
import type { LinkKind } from './markdown/remark.ts';

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

interface Source {
  links: ResolvedLink[];
  keys: Set<string>;
}

const lower = (s: string): string => s.toLowerCase();

/** The stem a link would match by file name: `folder/My Note.md` -> `my note`. */
function linkKey(target: string): string {
  return lower(stem(target.replace(/\/+$/, '')));
}

/** True when a link target names a file other than a note (`x.png`, `a/report.pdf`). */
export function isFileName(target: string): boolean {
  const name = basename(target.replace(/\/+$/, ''));
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 && name.slice(dot).toLowerCase() !== '.md';
}

/** One element per distinct target, in document order. */
export function distinctLinks(links: readonly LinkRef[]): LinkRef[] {
  const seen = new Set<string>();
  const out: LinkRef[] = [];
  for (const l of links) {
    if (!l.target || seen.has(l.target)) continue;
    seen.add(l.target);
    const ref: LinkRef = { target: l.target, kind: l.kind };
    if (l.heading !== undefined) ref.heading = l.heading;
    if (l.alias !== undefined) ref.alias = l.alias;
    out.push(ref);
  }
  return out;
}

/**
 * The vault's link graph with Obsidian-style resolution. Changing one note costs work
 * proportional to its own links plus the links that name its file (by stem), never the vault.
 */
export function createLinkGraph() {
  const sources = new Map<string, Source>();
  const byStem = new Map<string, Set<string>>();
  const byLowerPath = new Map<string, string>();
  const refsByKey = new Map<string, Set<string>>();
  const backlinks = new Map<string, Map<string, number>>();
  /** The vault's other files (attachments), by lower-case path, and by lower-case file name. */
  const files = new Map<string, string>();
  const filesByName = new Map<string, Set<string>>();

  const addTo = <K, V>(m: Map<K, Set<V>>, k: K, v: V) => {
    const s = m.get(k);
    if (s) s.add(v);
    else m.set(k, new Set([v]));
  };
  const removeFrom = <K, V>(m: Map<K, Set<V>>, k: K, v: V) => {
    const s = m.get(k);
    if (s?.delete(v) && s.size === 0) m.delete(k);
  };

  const findPath = (candidate: string): string | null => {
    if (sources.has(candidate)) return candidate;
    return byLowerPath.get(lower(candidate)) ?? null;
  };

  const byName = (candidate: string): string | null => {
    const matches = byStem.get(linkKey(candidate));
    if (!matches) return null;
    const suffix = candidate.includes('/') ? `/${lower(candidate)}` : null;
    let best: string | null = null;
    for (const p of matches) {
      if (suffix && !`/${lower(p)}`.endsWith(suffix)) continue;
      if (best === null || p.length < best.length || (p.length === best.length && p < best)) best = p;
    }
    return best;
  };

  /**
   * The file a link names, by Obsidian's rules: the exact vault path, then relative to the note's
   * folder, then by file name (the shortest path on a tie, then the first in order).
   */
  const resolveFile = (from: string, t: string): string | null => {
    const exact = files.get(lower(t));
    if (exact) return exact;
    const rel = joinRelative(dirname(from), t);
    const hit = rel ? files.get(lower(rel)) : undefined;
    if (hit) return hit;
    if (t.startsWith('../') || t.startsWith('./')) return null;
    const matches = filesByName.get(lower(basename(t)));
    if (!matches) return null;
    const suffix = t.includes('/') ? `/${lower(t)}` : null;
    let best: string | null = null;
    for (const p of matches) {
      if (suffix && !`/${lower(p)}`.endsWith(suffix)) continue;
      if (best === null || p.length < best.length || (p.length === best.length && p < best)) best = p;
    }
    return best;
  };

  /** Where `link` written in note `from` points right now; null when nothing matches. */
  const resolve = (from: string, link: LinkRef): string | null => {
    let t = link.target.trim();
    if (!t) return null;
    const markdown = link.kind === 'markdown';
    if (markdown && t.startsWith('/')) t = t.replace(/^\/+/, '');
    if (files.size && isFileName(t)) {
      const file = resolveFile(from, t);
      if (file) return file;
    }
    const candidate = lower(t).endsWith('.md') ? t : `${t}.md`;
    const exact = !candidate.split('/').some((s) => s === '..' || s === '.') ? findPath(candidate) : null;
    if (exact) return exact;
    if (markdown) {
      const rel = joinRelative(dirname(from), candidate);
      if (rel) {
        const hit = findPath(rel);
        if (hit) return hit;
      }
    }
    if (candidate.startsWith('../') || candidate.startsWith('./')) return null;
    return byName(candidate);
  };

  const detach = (path: string, src: Source, changed: Set<string>) => {
    for (const l of src.links) {
      if (!l.path) continue;
      const m = backlinks.get(l.path);
      if (!m) continue;
      const n = (m.get(path) ?? 1) - 1;
      if (n <= 0) m.delete(path);
      else m.set(path, n);
      if (m.size === 0) backlinks.delete(l.path);
      changed.add(l.path);
    }
  };

  const attach = (path: string, src: Source, changed: Set<string>) => {
    for (const l of src.links) {
      if (!l.path) continue;
      const m = backlinks.get(l.path) ?? new Map<string, number>();
      backlinks.set(l.path, m);
      m.set(path, (m.get(path) ?? 0) + 1);
      changed.add(l.path);
    }
  };

  const reresolve = (key: string, changed: Set<string>) => {
    const refs = refsByKey.get(key);
    if (!refs) return;
    for (const sp of refs) {
      const src = sources.get(sp);
      if (!src) continue;
      const next = src.links.map((l) => (linkKey(l.target) === key ? resolve(sp, l) : l.path));
      if (next.every((p, i) => p === src.links[i]?.path)) continue;
      detach(sp, src, changed);
      src.links = src.links.map((l, i) => ({ ...l, path: next[i] ?? null }));
      attach(sp, src, changed);
      changed.add(sp);
    }
  };

  /** Makes `path` known as a link target (no links of its own yet). */
  const addPath = (path: string) => {
    addTo(byStem, linkKey(path), path);
    byLowerPath.set(lower(path), path);
    sources.set(path, { links: [], keys: new Set() });
  };

  /** Resolves and records the outgoing links of a known `path` (its old ones already detached). */
  const setLinks = (path: string, links: readonly LinkRef[], changed: Set<string>) => {
    const src: Source = { links: [], keys: new Set() };
    for (const l of distinctLinks(links)) {
      src.links.push({ ...l, path: resolve(path, l) });
      src.keys.add(linkKey(l.target));
    }
    for (const k of src.keys) addTo(refsByKey, k, path);
    sources.set(path, src);
    attach(path, src, changed);
  };

  return {
    /** Resolution of one link as if written in `from`. */
    resolve,

    /**
     * Adds or replaces a note and its outgoing links. Returns every path whose links or
     * backlinks changed (including `path`).
     */
    set(path: string, links: readonly LinkRef[]): Set<string> {
      const changed = new Set<string>([path]);
      const old = sources.get(path);
      if (old) {
        detach(path, old, changed);
        for (const k of old.keys) removeFrom(refsByKey, k, path);
      } else {
        addPath(path);
        reresolve(linkKey(path), changed);
      }
      setLinks(path, links, changed);
      return changed;
    },

    /**
     * Adds many notes that are not in the graph yet, in one pass: every path is known before any
     * link resolves, so nothing needs re-resolving.
     */
    load(notes: readonly (readonly [string, readonly LinkRef[]])[]): void {
      for (const [path] of notes) if (!sources.has(path)) addPath(path);
      const ignored = new Set<string>();
      for (const [path, links] of notes) {
        setLinks(path, links, ignored);
        ignored.clear();
      }
    },

    /** Removes a note; links to it re-resolve (to another note of that name, or to null). */
    remove(path: string): Set<string> {
      const changed = new Set<string>();
      const src = sources.get(path);
      if (!src) return changed;
      detach(path, src, changed);
      for (const k of src.keys) removeFrom(refsByKey, k, path);
      sources.delete(path);
      removeFrom(byStem, linkKey(path), path);
      if (byLowerPath.get(lower(path)) === path) {
        byLowerPath.delete(lower(path));
        for (const p of byStem.get(linkKey(path)) ?? [])
          if (lower(p) === lower(path)) byLowerPath.set(lower(p), p);
      }
      reresolve(linkKey(path), changed);
      backlinks.delete(path);
      changed.delete(path);
      return changed;
    },

    /**
     * Makes the vault's files (attachments) known as link targets; links naming them re-resolve.
     * Returns every note whose links or backlinks changed.
     */
    addFiles(paths: readonly string[]): Set<string> {
      const changed = new Set<string>();
      const keys = new Set<string>();
      for (const path of paths) {
        if (files.get(lower(path)) === path) continue;
        files.set(lower(path), path);
        addTo(filesByName, lower(basename(path)), path);
        keys.add(linkKey(path));
      }
      for (const k of keys) reresolve(k, changed);
      for (const p of paths) changed.delete(p);
      return changed;
    },

    /** Forgets files; links to them re-resolve (to another file of that name, or to null). */
    removeFiles(paths: readonly string[]): Set<string> {
      const changed = new Set<string>();
      const keys = new Set<string>();
      for (const path of paths) {
        const known = files.get(lower(path));
        if (known === undefined) continue;
        files.delete(lower(path));
        removeFrom(filesByName, lower(basename(known)), known);
        keys.add(linkKey(known));
      }
      for (const k of keys) reresolve(k, changed);
      for (const p of paths) {
        changed.delete(p);
        backlinks.delete(p);
      }
      return changed;
    },

    /** True when `path` is a known file (not a note). */
    hasFile(path: string): boolean {
      return files.get(lower(path)) === path;
    },

    /** Known files under folder `prefix` ('' for all). */
    filesUnder(prefix: string): string[] {
      const out: string[] = [];
      for (const p of files.values()) if (!prefix || p.startsWith(`${prefix}/`)) out.push(p);
      return out;
    },

    /** How many known files share the file name of `path`. */
    fileNameCount(name: string): number {
      return filesByName.get(lower(basename(name)))?.size ?? 0;
    },

    /** Outgoing links of `path` (empty when unknown). */
    linksOf(path: string): readonly ResolvedLink[] {
      return sources.get(path)?.links ?? [];
    },

    /** Paths of the notes linking to `path`, sorted. */
    backlinksOf(path: string): string[] {
      const m = backlinks.get(path);
      return m ? [...m.keys()].sort() : [];
    },

    /** How many notes share the file name stem of `path`. */
    stemCount(name: string): number {
      return byStem.get(lower(stem(basename(name))))?.size ?? 0;
    },
  };
}

export type LinkGraph = ReturnType<typeof createLinkGraph>;
