import { basename, dirname, joinRelative } from '../paths.ts';

/** Where Obsidian's `attachmentFolderPath` setting puts new attachments. */
export type AttachmentFolderRule =
  | { kind: 'root' }
  | { kind: 'fixed'; folder: string }
  | { kind: 'note-folder'; sub: string };

/**
 * Reads `attachmentFolderPath` from the text of `.obsidian/app.json`:
 * absent, empty or `/` is the vault root (Obsidian's default, and ours without the file);
 * `./` is the note's own folder; `./sub` a subfolder of the note's folder; anything else a fixed
 * folder of the vault. Unreadable JSON counts as absent.
 */
export function parseAttachmentRule(appJson: string | null): AttachmentFolderRule {
  let raw: unknown;
  try {
    raw = appJson ? (JSON.parse(appJson) as Record<string, unknown>)?.attachmentFolderPath : undefined;
  } catch {
    raw = undefined;
  }
  if (typeof raw !== 'string') return { kind: 'root' };
  const value = raw.trim().replace(/\\/g, '/');
  if (value === '' || value === '/' || value === '.') return { kind: 'root' };
  if (value === './' || value.startsWith('./')) {
    return { kind: 'note-folder', sub: value.slice(2).replace(/^\/+|\/+$/g, '') };
  }
  return { kind: 'fixed', folder: value.replace(/^\/+|\/+$/g, '') };
}

/**
 * The folder a new attachment of note `notePath` goes to under `rule` (`''` is the vault root).
 * A folder that would leave the vault falls back to the root.
 */
export function attachmentFolder(rule: AttachmentFolderRule, notePath: string | null): string {
  if (rule.kind === 'root') return '';
  if (rule.kind === 'fixed') return joinRelative('', rule.folder) ?? '';
  const base = notePath ? dirname(notePath) : '';
  return joinRelative(base, rule.sub) ?? '';
}

/**
 * The first free path for `name` in `folder`, Obsidian style: `name.png`, then `name 1.png`,
 * `name 2.png`... `exists` says whether a path is taken.
 */
export async function freePath(
  folder: string,
  name: string,
  exists: (path: string) => Promise<boolean>,
): Promise<string> {
  const file = basename(name);
  const dot = file.lastIndexOf('.');
  const stemPart = dot > 0 ? file.slice(0, dot) : file;
  const ext = dot > 0 ? file.slice(dot) : '';
  const at = (n: number) => {
    const f = n === 0 ? file : `${stemPart} ${n}${ext}`;
    return folder ? `${folder}/${f}` : f;
  };
  for (let n = 0; n < 10_000; n++) {
    if (!(await exists(at(n)))) return at(n);
  }
  return at(Date.now());
}
