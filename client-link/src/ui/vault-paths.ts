import type { FolderNode } from '../flow/workspace-api.ts';

/** Every note and attachment path of the vault, from the folder tree. */
export interface VaultPaths {
  notes: string[];
  files: string[];
}

/** The paths in a folder tree. */
export function vaultPaths(tree: FolderNode): VaultPaths {
  const out: VaultPaths = { notes: [], files: [] };
  const walk = (n: FolderNode) => {
    for (const c of n.children) {
      if (c.type === 'folder') walk(c as FolderNode);
      else if (c.type === 'note') out.notes.push(c.path);
      else out.files.push(c.path);
    }
  };
  walk(tree);
  return out;
}

const dir = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** `rel` joined onto folder `from`, `.` and `..` resolved; null when it leaves the vault. */
function join(from: string, rel: string): string | null {
  const out = from ? from.split('/') : [];
  for (const s of rel.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (!out.length) return null;
      out.pop();
    } else out.push(s);
  }
  return out.join('/');
}

/**
 * Resolves a link target by Obsidian's rules: the exact vault path, then relative to the note's
 * folder, then by file name (case-insensitive; the shortest path wins a tie). A target without an
 * extension also tries `.md`. Returns the path and whether it is a note, or null.
 */
export function resolveTarget(
  vault: VaultPaths,
  target: string,
  fromNote: string,
): { path: string; kind: 'note' | 'file' } | null {
  const t = target.trim().replace(/^\/+/, '');
  if (!t) return null;
  const candidates =
    /\.[A-Za-z0-9]+$/.test(t) && !t.toLowerCase().endsWith('.md')
      ? [t]
      : [`${t.replace(/\.md$/i, '')}.md`, t];
  const all = [
    ...vault.notes.map((p) => ({ path: p, kind: 'note' as const })),
    ...vault.files.map((p) => ({ path: p, kind: 'file' as const })),
  ];
  const byLower = new Map(all.map((e) => [e.path.toLowerCase(), e]));
  for (const c of candidates) {
    const exact = byLower.get(c.toLowerCase());
    if (exact) return exact;
    const rel = join(dir(fromNote), c);
    const relative = rel === null ? undefined : byLower.get(rel.toLowerCase());
    if (relative) return relative;
  }
  for (const c of candidates) {
    const name = base(c).toLowerCase();
    const matches = all.filter((e) => base(e.path).toLowerCase() === name);
    if (!matches.length) continue;
    // A target with folders must match the end of the path.
    const tail = c.toLowerCase();
    const fitting = matches.filter((e) => e.path.toLowerCase().endsWith(tail));
    const pool = fitting.length ? fitting : c.includes('/') ? [] : matches;
    if (!pool.length) continue;
    return pool.sort((a, b) => a.path.length - b.path.length || (a.path < b.path ? -1 : 1))[0]!;
  }
  return null;
}
