/**
 * Paste or drop an image (any file) into the note editor: it is uploaded to the vault's
 * attachment folder (`.obsidian/app.json` attachmentFolderPath, as Obsidian would place it) and
 * the editor (editor.ts) inserts `![[name]]` at the cursor, like Obsidian does.
 */
import { vaultPaths } from './vault-paths.ts';
import { describe, type Workspace } from './workspace-context.ts';

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
};

/** Obsidian's name for a pasted image: `Pasted image 20240131093005.png`. */
export function pastedName(type: string, now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `Pasted image ${stamp}.${EXT[type] ?? 'png'}`;
}

/** Uploads `files` for `notePath`; resolves to their embeds (`![[name]]`, one a line), '' if none. */
export async function uploadEmbeds(
  ws: Workspace,
  notePath: string,
  files: File[],
  pasted: boolean,
): Promise<string> {
  const embeds: string[] = [];
  for (const file of files) {
    const name = pasted || !file.name || file.name === 'image.png' ? pastedName(file.type) : file.name;
    try {
      ws.say(`Uploading ${name}…`);
      const { path } = await ws.api.files.attachmentPath(name, notePath);
      const saved = await ws.api.files.upload(path, file);
      const vault = await ws.api.tree().then(vaultPaths, () => null);
      const base = saved.path.slice(saved.path.lastIndexOf('/') + 1);
      const unique = vault
        ? vault.files.filter((f) => f.endsWith(`/${base}`) || f === base).length <= 1
        : false;
      embeds.push(`![[${unique ? base : saved.path}]]`);
      ws.say(`Uploaded ${saved.path}.`);
    } catch (err) {
      ws.say(`Could not upload ${name}: ${describe(err, ws.profile.apiKey)}`, 'error');
    }
  }
  return embeds.join('\n');
}
