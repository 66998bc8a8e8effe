import type { FolderNode } from '../notes/tree.ts';
import { basename } from '../paths.ts';
import type { FileMeta } from './service.ts';

/** An attachment in the folder tree. */
export interface FileTreeNode {
  name: string;
  path: string;
  type: 'file';
  size: number;
  contentType: string;
}

/** A folder node whose children may also be attachments. */
export type FolderNodeWithFiles = Omit<FolderNode, 'children'> & {
  children: (FolderNode['children'][number] | FileTreeNode | FolderNodeWithFiles)[];
};

/**
 * Adds the attachments under `tree.path` to a note tree, each after the notes of its folder
 * (sorted by path). `noteCount` is unchanged: it counts notes only. A folder the note index does
 * not know yet (created a moment ago) is added.
 */
export function addFilesToTree(tree: FolderNode, files: readonly FileMeta[]): FolderNodeWithFiles {
  // Copies the folders (never mutates the note tree, which a caller may cache).
  const copy = (n: FolderNode): FolderNodeWithFiles => ({
    ...n,
    children: n.children.map((c) => (c.type === 'folder' ? copy(c) : c)),
  });
  const root = copy(tree);
  const folders = new Map<string, FolderNodeWithFiles>();
  const index = (n: FolderNodeWithFiles) => {
    folders.set(n.path, n);
    for (const c of n.children) if (c.type === 'folder') index(c as FolderNodeWithFiles);
  };
  index(root);
  const prefix = root.path ? `${root.path}/` : '';
  const ensure = (dir: string): FolderNodeWithFiles => {
    const found = folders.get(dir);
    if (found) return found;
    const cut = dir.lastIndexOf('/');
    const parent = ensure(cut >= prefix.length ? dir.slice(0, cut) : root.path);
    const n: FolderNodeWithFiles = {
      name: basename(dir),
      path: dir,
      type: 'folder',
      noteCount: 0,
      children: [],
    };
    parent.children.push(n);
    folders.set(dir, n);
    return n;
  };
  for (const f of files) {
    if (!f.path.startsWith(prefix)) continue;
    const cut = f.path.lastIndexOf('/');
    const dir = cut >= 0 ? f.path.slice(0, cut) : '';
    ensure(dir).children.push({
      name: basename(f.path),
      path: f.path,
      type: 'file',
      size: f.size,
      contentType: f.contentType,
    });
  }
  return root;
}
