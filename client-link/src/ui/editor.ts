/**
 * The note editor: CodeMirror 6 (lazy/codemirror.ts, loaded when editing starts) with markdown
 * highlighting and `[[` completion over note titles, aliases, file names and headings; a plain textarea
 * only when that chunk fails to load. Either way the host element (`data-testid="editor"`) has a
 * `value` property with the text, and pasted or dropped files are uploaded (upload.ts).
 */
import type { NoteEntry } from '../flow/workspace-api.ts';
import { h } from './dom.ts';
import type { EditorHandle, EditorOptions, LinkCandidate } from './editor-types.ts';
import { log } from './log.ts';
import { uploadEmbeds } from './upload.ts';
import { vaultPaths } from './vault-paths.ts';
import type { Workspace } from './workspace-context.ts';

/**
 * The `[[` candidates: each note by title (and by file name when that differs), each alias
 * (inserted as `target|alias`, so the link resolves to the note and shows the alias), each file.
 * A target is the shortest unambiguous one (the name, or the path when the name repeats).
 */
export function linkCandidates(
  notes: readonly Pick<NoteEntry, 'path' | 'title'>[],
  files: readonly string[],
  aliases: ReadonlyMap<string, readonly string[]> = new Map(),
): LinkCandidate[] {
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const counts = new Map<string, number>();
  for (const p of [...notes.map((n) => n.path), ...files]) {
    const b = base(p).replace(/\.md$/i, '').toLowerCase();
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  const target = (p: string) => {
    const b = base(p).replace(/\.md$/i, '');
    return (counts.get(b.toLowerCase()) ?? 0) > 1 ? p.replace(/\.md$/i, '') : b;
  };
  return [
    ...notes.map((n) => ({ label: n.title, insert: target(n.path), detail: n.path, kind: 'note' as const })),
    ...notes
      .filter((n) => base(n.path).replace(/\.md$/i, '') !== n.title)
      .map((n) => ({
        label: target(n.path),
        insert: target(n.path),
        detail: n.title,
        kind: 'note' as const,
      })),
    ...notes.flatMap((n) =>
      (aliases.get(n.path) ?? []).map((a) => ({
        label: a,
        insert: `${target(n.path)}|${a}`,
        detail: `alias of ${n.title}`,
        kind: 'note' as const,
      })),
    ),
    ...files.map((f) => ({
      label: base(f),
      insert: target(f) === base(f) ? base(f) : f,
      detail: f,
      kind: 'file' as const,
    })),
  ];
}

/** The headings of a markdown text, in order (not the `#` lines inside fenced code). */
export function headingsOf(source: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of source.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]!.startsWith(fence)) fence = null;
    } else if (f) fence = f[1]!;
    else {
      const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (m) out.push(m[1]!);
    }
  }
  return out;
}

/** Mounts the editor for `notePath` in a fresh host element. */
export async function openEditor(
  ws: Workspace,
  notePath: string,
  doc: string,
  live?: EditorOptions['live'],
): Promise<{ host: HTMLElement; handle: EditorHandle }> {
  const host = h('div', { class: 'note-editor', 'data-testid': 'editor' });
  let handle: EditorHandle;
  const opts: EditorOptions = {
    label: `Text of ${notePath}`,
    async candidates() {
      const [notes, tree] = await Promise.all([ws.api.listNotes(), ws.api.tree().catch(() => null)]);
      const files = tree ? vaultPaths(tree).files : [];
      return linkCandidates(notes, files, new Map(notes.map((n) => [n.path, n.aliases])));
    },
    async headings(target) {
      const notes = await ws.api.listNotes();
      const t = target.trim().toLowerCase();
      const hit = notes.find(
        (n) =>
          n.path.toLowerCase() === `${t}.md` ||
          n.path.toLowerCase().endsWith(`/${t}.md`) ||
          n.title.toLowerCase() === t ||
          n.aliases.some((a) => a.toLowerCase() === t),
      );
      return hit ? headingsOf((await ws.api.read(hit.path)).content) : [];
    },
    // The form around the editor holds the one save path (note-view.ts): Ctrl+S submits it.
    save: () => host.closest('form')?.requestSubmit(),
    live,
    onFiles(files, pasted) {
      void uploadEmbeds(ws, notePath, files, pasted).then((text) => {
        if (text) handle.insert(text);
      });
    },
  };
  try {
    const { createEditor } = await import('./lazy/codemirror.ts');
    handle = createEditor(host, doc, opts);
  } catch (err) {
    // A live document is bound to CodeMirror; a textarea could not follow the others' typing.
    if (live) throw err;
    log.warn('editor: CodeMirror did not load, using a plain textarea:', String(err));
    const area = h('textarea', { rows: '20', 'aria-label': opts.label });
    area.value = doc;
    host.append(area);
    handle = {
      kind: 'textarea',
      value: () => area.value,
      insert(text) {
        const at = area.selectionStart ?? area.value.length;
        area.value = area.value.slice(0, at) + text + area.value.slice(area.selectionEnd ?? at);
        area.selectionStart = area.selectionEnd = at + text.length;
      },
      focus: () => area.focus(),
      destroy() {},
    };
    area.addEventListener('paste', (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (!files.length) return;
      e.preventDefault();
      opts.onFiles(files, true);
    });
  }
  host.dataset.editor = handle.kind;
  Object.defineProperty(host, 'value', { get: () => handle.value() });
  return { host, handle };
}
