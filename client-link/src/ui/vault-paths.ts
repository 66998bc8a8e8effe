import type { FolderNode, Note } from '../flow/workspace-api.ts';

/** Every note and attachment path of the vault, from the folder tree (upload.ts: is a name unique?). */
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

/** A resolved link target: the vault path and what it is. */
export interface Found {
  path: string;
  kind: 'note' | 'file';
}

/**
 * Where `target`, as written in `note`, points by the server's index (`links[].path`, resolved by
 * Obsidian's rules: docs/guide/obsidian.md); null when unresolved. The exact target first, then
 * case-insensitively.
 */
export function locate(note: Pick<Note, 'links'>, target: string): Found | null {
  const t = target.trim();
  if (!t) return null;
  const lower = t.toLowerCase();
  const hit =
    note.links.find((l) => l.target === t) ?? note.links.find((l) => l.target.toLowerCase() === lower);
  if (!hit?.path) return null;
  return { path: hit.path, kind: hit.type ?? (hit.path.toLowerCase().endsWith('.md') ? 'note' : 'file') };
}
