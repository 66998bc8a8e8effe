import { DomainError } from '../errors.ts';
import { basename, validateFolderPath } from '../paths.ts';

/** A node of the folder tree. */
export interface FolderNode {
  name: string;
  path: string;
  type: 'folder';
  noteCount: number;
  children: (FolderNode | { name: string; path: string; type: 'note'; title: string })[];
}

/** What the folder tree is built from: the index's folder set and note paths. */
export interface TreeSource {
  folders: ReadonlySet<string>;
  /** Every note path, sorted. */
  sortedPaths(): readonly string[];
  titleOf(path: string): string;
}

/** The subtree of a folder ('' is the vault root): folders first, then notes, each by name. */
export function folderTree(src: TreeSource, folderInput: unknown): FolderNode {
  const folder = validateFolderPath(folderInput);
  if (folder !== '' && !src.folders.has(folder)) {
    throw new DomainError('FOLDER_NOT_FOUND', `No folder at "${folder}".`);
  }
  const root: FolderNode = {
    name: basename(folder),
    path: folder,
    type: 'folder',
    noteCount: 0,
    children: [],
  };
  const nodes = new Map<string, FolderNode>([[folder, root]]);
  const prefix = folder ? `${folder}/` : '';
  const ensure = (dir: string): FolderNode => {
    let n = nodes.get(dir);
    if (n) return n;
    const parentDir = dir.lastIndexOf('/') >= prefix.length ? dir.slice(0, dir.lastIndexOf('/')) : folder;
    const parent = ensure(parentDir);
    n = { name: basename(dir), path: dir, type: 'folder', noteCount: 0, children: [] };
    parent.children.push(n);
    nodes.set(dir, n);
    return n;
  };
  for (const f of [...src.folders].sort()) if (f.startsWith(prefix)) ensure(f);
  for (const p of src.sortedPaths()) {
    if (!p.startsWith(prefix)) continue;
    const dir = p.lastIndexOf('/') >= 0 ? p.slice(0, p.lastIndexOf('/')) : '';
    ensure(dir).children.push({ name: basename(p), path: p, type: 'note', title: src.titleOf(p) });
  }
  const count = (n: FolderNode): number => {
    n.noteCount = 0;
    for (const c of n.children) n.noteCount += c.type === 'note' ? 1 : count(c);
    return n.noteCount;
  };
  count(root);
  const sort = (n: FolderNode) => {
    n.children.sort((a, b) =>
      a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'folder' ? -1 : 1,
    );
    for (const c of n.children) if (c.type === 'folder') sort(c);
  };
  sort(root);
  return root;
}
