/**
 * A note's conflict line (the callout a merge with overlaps adds, core/notes/merge/update.ts) and
 * the texts its resolution writes: the note without the line, the copy's text, or both, line by
 * line. Pure functions over text: the workspace's conflict banner (ui/conflict-view.ts) uses them.
 */

/** A conflict line of a note: the line itself and the copy it links (a vault path ending in .md). */
export interface ConflictLink {
  line: string;
  copy: string;
}

const LINE = /^> \[!warning\] Conflict: .*\[\[([^\]|#]+? \(conflict [^\]|#]+\))\]\]\.?\s*$/;

/** The conflict lines of `content`, top first. */
export function conflictsIn(content: string): ConflictLink[] {
  const out: ConflictLink[] = [];
  for (const line of content.split('\n')) {
    const m = LINE.exec(line);
    if (m) out.push({ line, copy: `${m[1]}.md` });
  }
  return out;
}

/** `content` without the conflict line linking `copy` (and the blank line the merge put after it). */
export function withoutConflictLine(content: string, copy: string): string {
  const lines = content.split('\n');
  const at = lines.findIndex((l) => LINE.exec(l)?.[1] === copy.replace(/\.md$/i, ''));
  if (at < 0) return content;
  lines.splice(at, lines[at + 1] === '' ? 2 : 1);
  return lines.join('\n');
}

/** One line of a comparison: in both texts, only in the note, or only in the copy. */
export interface DiffLine {
  side: 'both' | 'note' | 'copy';
  text: string;
}

/** Above this many cells the middle of a comparison is shown as replaced whole (time and memory). */
const MAX_CELLS = 4_000_000;

/**
 * The lines of `note` and `copy` in order, common lines once (a longest common subsequence after
 * the common start and end); where they differ, the note's lines first, then the copy's.
 */
export function compareLines(note: string, copy: string): DiffLine[] {
  const a = note.split('\n');
  const b = copy.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const head = a.slice(0, start).map((text) => ({ side: 'both' as const, text }));
  const tail = a.slice(a.length - end).map((text) => ({ side: 'both' as const, text }));
  const x = a.slice(start, a.length - end);
  const y = b.slice(start, b.length - end);
  return [...head, ...middle(x, y), ...tail];
}

function middle(x: string[], y: string[]): DiffLine[] {
  const n = x.length;
  const m = y.length;
  if ((n + 1) * (m + 1) > MAX_CELLS)
    return [
      ...x.map((text) => ({ side: 'note' as const, text })),
      ...y.map((text) => ({ side: 'copy' as const, text })),
    ];
  // lcs[i][j]: the longest common subsequence of x[i..] and y[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  const out: DiffLine[] = [];
  const notes: DiffLine[] = [];
  const copies: DiffLine[] = [];
  const flush = () => {
    out.push(...notes.splice(0), ...copies.splice(0));
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      flush();
      out.push({ side: 'both', text: x[i]! });
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!))
      notes.push({ side: 'note', text: x[i++]! });
    else copies.push({ side: 'copy', text: y[j++]! });
  }
  flush();
  return out;
}

/** The frontmatter block of a text (with its closing line), or ''. */
const blockOf = (text: string): string => /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(text)?.[0] ?? '';

/**
 * Both texts in one: the note's frontmatter (two YAML blocks interleaved would not parse; the
 * copy's block stays in the history), then the bodies line by line, common lines once and, where
 * they differ, the note's lines then the copy's: no line of either body is dropped.
 */
export function keepBoth(note: string, copy: string): string {
  const nb = blockOf(note);
  const cb = blockOf(copy);
  return (
    nb +
    compareLines(note.slice(nb.length), copy.slice(cb.length))
      .map((l) => l.text)
      .join('\n')
  );
}

/**
 * `text` with `lines` (other conflict lines of the note) at the top of its body where it lacks
 * them: taking a copy's text keeps the note's other conflicts linked.
 */
export function withConflictLines(text: string, lines: readonly string[]): string {
  const missing = lines.filter((l) => !text.split('\n').includes(l));
  if (!missing.length) return text;
  const block = blockOf(text);
  return `${block}${missing.map((l) => `${l}\n\n`).join('')}${text.slice(block.length)}`;
}
