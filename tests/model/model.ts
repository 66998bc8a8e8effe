/**
 * The reference model of a vault for the model-based consistency test: notes by path with their
 * text, the trash, and the checksums each note's history must hold. Everything the API derives
 * (title, tags, links, backlinks, word count, frontmatter, tags list, folder tree) is computed here
 * by the model's own simple rules, which are exact for the notes the generator (ops.ts) writes:
 *
 *   [---\ntags: [t1, t2]\n---\n][# Title words\n\n]line of tokens\n...
 *
 * where a token is a plain lowercase word, `#tag` (lowercase letters) or `[[name]]` (a note's file
 * name without `.md`; names are unique in what the generator writes; where two notes share one,
`pathByName` resolves as the server does).
 * Pure TypeScript: no server, no I/O.
 */
import { createHash } from 'node:crypto';

/** A trash item the model expects: what a REST or MCP delete put there. */
export interface TrashItem {
  path: string;
  content: string;
  /** The server's id, once known (from the delete's answer, or the trash list after a restart). */
  id?: string;
  /**
   * A note removed on disk: the server's history puts its newest kept version in the trash when it
   * kept one, so the item may be absent; once the server lists it, it is no longer optional.
   */
  optional?: boolean;
  /**
   * For an optional item: the checksums of every text the path held. The server trashes the newest
   * version it kept, which is an older text when the last one was written while it was down.
   */
  held?: string[];
}

export interface Link {
  target: string;
  path: string | null;
  kind: 'wikilink';
  type: 'note';
}

/** A note summary as the list shows it, without the timestamps (not modelled). */
export interface Summary {
  path: string;
  title: string;
  tags: string[];
  links: Link[];
  backlinks: { path: string; title: string }[];
  wordCount: number;
  checksum: string;
}

export interface FullNote extends Summary {
  content: string;
  frontmatter: Record<string, unknown>;
}

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The file name without `.md`: what a wiki-link names. */
export const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');
export const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

interface Parsed {
  fmTags: string[] | null;
  title: string | null;
  tags: string[];
  links: string[];
  words: number;
}

/** Reads a note the generator wrote, by the grammar in the file comment. */
export function parse(content: string): Parsed {
  let body = content;
  let fmTags: string[] | null = null;
  if (body.startsWith('---\n')) {
    const end = body.indexOf('\n---\n', 3);
    const fm = body.slice(4, end);
    body = body.slice(end + 5);
    const m = /^tags: \[(.*)\]$/m.exec(fm);
    fmTags = m
      ? m[1]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  }
  let title: string | null = null;
  const tags: string[] = [...(fmTags ?? [])];
  const links: string[] = [];
  let words = 0;
  for (const line of body.split('\n')) {
    let rest = line;
    if (line.startsWith('# ')) {
      rest = line.slice(2);
      title ??= rest;
    }
    for (const tok of rest.split(' ')) {
      if (!tok) continue;
      words++;
      if (tok.startsWith('#')) tags.push(tok.slice(1));
      else if (tok.startsWith('[[')) links.push(tok.slice(2, -2));
    }
  }
  // A tag is listed once, where it first appears (the generator writes lowercase tags only).
  return { fmTags, title, tags: [...new Set(tags)], links, words };
}

/** The vault as the model knows it. */
export class VaultModel {
  notes = new Map<string, string>();
  trash: TrashItem[] = [];
  /** Checksums each note's versions must include (earlier acknowledged texts of that note). */
  versions = new Map<string, Set<string>>();
  /** Bumped on every change, so a reader can tell whether an old ETag may still be current. */
  version = 0;
  /** Every text each path has held (checksums), for the trash items of removals on disk. */
  held = new Map<string, Set<string>>();

  clone(): VaultModel {
    const m = new VaultModel();
    m.notes = new Map(this.notes);
    m.trash = this.trash.map((t) => ({ ...t }));
    m.versions = new Map([...this.versions].map(([k, v]) => [k, new Set(v)]));
    m.version = this.version;
    m.held = new Map([...this.held].map(([k, v]) => [k, new Set(v)]));
    return m;
  }

  /**
   * Where `[[name]]` points, by the server's rule (docs/reference/api.md): the note at the vault's root of
   * that name, else the shortest path of that name, then the first in order. Names are unique in
   * what the generator writes, but a SIGKILL's cut create found applied after the start (the model
   * takes it then) can leave two notes of one name.
   */
  pathByName(name: string): string | null {
    let best: string | null = null;
    for (const p of this.notes.keys()) {
      if (nameOf(p) !== name) continue;
      if (p === `${name}.md`) return p;
      if (best === null || p.length < best.length || (p.length === best.length && p < best)) best = p;
    }
    return best;
  }

  /** A name is free when no note has it (names are unique in the model's vaults). */
  nameFree(name: string, except?: string): boolean {
    const p = this.pathByName(name);
    return p === null || p === except;
  }

  // ---- changes ----

  /** Sets `path` to `content`; `remember` keeps the old text as a version the server must hold. */
  write(path: string, content: string, remember: boolean): void {
    const old = this.notes.get(path);
    if (remember && old !== undefined && old !== content) this.remember(path, old);
    this.notes.set(path, content);
    this.hold(path, content);
    this.version++;
  }

  private hold(path: string, content: string): void {
    const s = this.held.get(path) ?? new Set<string>();
    s.add(sha256(content));
    this.held.set(path, s);
  }

  remember(path: string, content: string): void {
    const s = this.versions.get(path) ?? new Set<string>();
    s.add(sha256(content));
    this.versions.set(path, s);
  }

  /** Removes a note; through the API it goes to the trash, on disk it may (`optional`). */
  remove(path: string, how: 'api' | 'disk', id?: string): void {
    const old = this.notes.get(path);
    if (old === undefined) return;
    this.notes.delete(path);
    this.versions.delete(path);
    this.trash.push({ path, content: old, id, optional: how === 'disk', held: this.heldAt(path) });
    this.version++;
  }

  /** Moves a note; on disk that is a removal (trash item `optional`) and a new note. */
  move(from: string, to: string, how: 'api' | 'disk' = 'api'): void {
    const c = this.notes.get(from);
    if (c === undefined) return;
    if (how === 'disk') this.trash.push({ path: from, content: c, optional: true, held: this.heldAt(from) });
    this.notes.delete(from);
    this.notes.set(to, c);
    this.hold(to, c);
    const v = this.versions.get(from);
    this.versions.delete(from);
    if (v) this.versions.set(to, v);
    this.version++;
  }

  private heldAt(path: string): string[] {
    return [...(this.held.get(path) ?? [])];
  }

  restore(item: TrashItem): void {
    this.trash = this.trash.filter((t) => t !== item);
    this.notes.set(item.path, item.content);
    this.hold(item.path, item.content);
    this.version++;
  }

  // ---- derived answers ----

  title(path: string): string {
    return parse(this.notes.get(path)!).title ?? nameOf(path);
  }

  summary(path: string): Summary {
    const content = this.notes.get(path)!;
    const p = parse(content);
    const backlinks: { path: string; title: string }[] = [];
    const name = nameOf(path);
    for (const [q, c] of this.notes)
      if (q !== path && parse(c).links.includes(name) && this.pathByName(name) === path)
        backlinks.push({ path: q, title: this.title(q) });
    backlinks.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      path,
      title: p.title ?? nameOf(path),
      tags: p.tags,
      links: p.links.map((target) => ({
        target,
        path: this.pathByName(target),
        kind: 'wikilink',
        type: 'note',
      })),
      backlinks,
      wordCount: p.words,
      checksum: sha256(content),
    };
  }

  note(path: string): FullNote {
    const content = this.notes.get(path)!;
    const { fmTags } = parse(content);
    // `content` is the body: the text after the frontmatter block (the checksum is the file's).
    const body = fmTags === null ? content : content.slice(content.indexOf('\n---\n', 3) + 5);
    return { ...this.summary(path), content: body, frontmatter: fmTags === null ? {} : { tags: fmTags } };
  }

  paths(): string[] {
    return [...this.notes.keys()].sort();
  }

  list(): Summary[] {
    return this.paths().map((p) => this.summary(p));
  }

  tags(): { tag: string; count: number }[] {
    const counts = new Map<string, number>();
    for (const p of this.paths())
      for (const t of new Set(parse(this.notes.get(p)!).tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts]
      .map(([tag, count]) => ({ tag, count }))
      .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }

  /** The folder tree of the whole vault, folders holding no note left out (see pruneTree). */
  tree(): TreeNode {
    const root: TreeNode = { name: '', path: '', type: 'folder', noteCount: 0, children: [] };
    const nodes = new Map<string, TreeNode>([['', root]]);
    const ensure = (dir: string): TreeNode => {
      let n = nodes.get(dir);
      if (n) return n;
      const parent = ensure(folderOf(dir));
      n = {
        name: dir.slice(dir.lastIndexOf('/') + 1),
        path: dir,
        type: 'folder',
        noteCount: 0,
        children: [],
      };
      parent.children!.push(n);
      nodes.set(dir, n);
      return n;
    };
    for (const p of this.paths())
      ensure(folderOf(p)).children!.push({
        name: p.slice(p.lastIndexOf('/') + 1),
        path: p,
        type: 'note',
        title: this.title(p),
      });
    return sortTree(countTree(root));
  }
}

export interface TreeNode {
  name: string;
  path: string;
  type: 'folder' | 'note';
  noteCount?: number;
  title?: string;
  children?: TreeNode[];
}

function countTree(n: TreeNode): TreeNode {
  n.noteCount = 0;
  for (const c of n.children!) n.noteCount += c.type === 'note' ? 1 : countTree(c).noteCount!;
  return n;
}

function sortTree(n: TreeNode): TreeNode {
  n.children!.sort((a, b) =>
    a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'folder' ? -1 : 1,
  );
  for (const c of n.children!) if (c.type === 'folder') sortTree(c);
  return n;
}

/**
 * The server's tree without folders that hold no note: the index keeps a folder it has seen
 * (an empty directory on disk, a folder a note moved out of) until it is removed, which the model
 * does not follow.
 */
export function pruneTree(n: TreeNode): TreeNode {
  if (n.type !== 'folder') return n;
  return {
    ...n,
    children: n.children!.filter((c) => c.type === 'note' || (c.noteCount ?? 0) > 0).map(pruneTree),
  };
}
