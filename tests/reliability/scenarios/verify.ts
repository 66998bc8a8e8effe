/**
 * Checks of what a server left on disk after a crash: temporary files, note contents against
 * what clients wrote, and the restarted server's index against a fresh index of the same files.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsNoteStore } from '../../../adapters/store/fs-note-store.ts';
import { TEMP_PREFIX } from '../../../adapters/store/fs-safe.ts';
import { createNoteService } from '../../../core/notes/service.ts';

/** Every file under `dir` (dot-folders included) whose name marks an unfinished atomic write. */
export async function tempFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith(TEMP_PREFIX)) out.push(child);
      else if (e.isDirectory()) await walk(child);
    }
  };
  await walk('');
  return out;
}

/** The `.md` files of a vault (dot-folders and dot-files skipped, as the server does): path -> text. */
export async function diskNotes(vault: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string) => {
    const entries = await readdir(join(vault, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else if (e.isFile() && e.name.endsWith('.md'))
        out.set(child, await readFile(join(vault, child), 'utf8'));
    }
  };
  await walk('');
  return out;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A note summary without the field that legitimately differs between two indexes. */
const comparable = (s: Record<string, unknown>) => {
  const { createdAt: _c, ...rest } = s;
  return JSON.stringify(rest);
};

/**
 * Compares the list a running server answers (`apiList`: GET /api/v1/notes data) with the
 * files on disk (checksums) and with a fresh index built from the same files (titles, tags,
 * links and backlinks). Returns one line per difference.
 */
export async function compareIndex(vault: string, apiList: Record<string, any>[]): Promise<string[]> {
  const problems: string[] = [];
  const disk = await diskNotes(vault);
  const api = new Map(apiList.map((s) => [s.path as string, s]));
  for (const [path, text] of disk) {
    const s = api.get(path);
    if (!s) problems.push(`on disk but not in the index: ${path}`);
    else if (s.checksum !== sha256(text)) problems.push(`index checksum differs from the file: ${path}`);
  }
  for (const path of api.keys()) if (!disk.has(path)) problems.push(`in the index but not on disk: ${path}`);
  const fresh = createNoteService({
    store: fsNoteStore({ dir: vault, watch: false }),
    clock: { now: () => Date.now() },
  });
  await fresh.load();
  for (const s of fresh.list().items) {
    const a = api.get(s.path);
    if (a && comparable(a) !== comparable(s as unknown as Record<string, unknown>))
      problems.push(`index or link graph differs from a fresh index: ${s.path}`);
  }
  return problems;
}
