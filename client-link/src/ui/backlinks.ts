/**
 * Backlinks with the sentence that links: each linking note is read (in parallel, a few at a time)
 * and the lines of it whose links resolve to this note (by the server's `links[]`) are shown as
 * plain text under its title.
 */
import type { Note } from '../flow/workspace-api.ts';
import { h, mount } from './dom.ts';
import type { Workspace } from './workspace-context.ts';

const MAX_NOTES = 30;
const MAX_CONTEXT = 240;

/** Markdown of one line as readable text: link syntax to its shown text, markers dropped. */
export function plainLine(line: string): string {
  return line
    .replace(/^\s*(?:>\s*)*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|#{1,6}\s+)?/, '')
    .replace(/!?\[\[([^\]|]+?)(?:\\?\|([^\]]+))?\]\]/g, (_a, t: string, alias?: string) =>
      (alias ?? t.replace(/#\^?/, ' › ')).trim(),
    )
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_~=`]{1,3}(\S[^*_~=`]*?)[*_~=`]{1,3}/g, '$1')
    .replace(/\s+\^[A-Za-z0-9-]+\s*$/, '')
    .trim();
}

/** The lines of `source` (as plain text, shortened) that carry a link to one of `targets`. */
export function linkingLines(source: string, targets: readonly string[]): string[] {
  const wanted = targets.map((t) => t.toLowerCase());
  const out: string[] = [];
  for (const line of source.split('\n')) {
    const lower = line.toLowerCase();
    const hit = wanted.some(
      (t) =>
        lower.includes(`[[${t}]]`) ||
        lower.includes(`[[${t}|`) ||
        lower.includes(`[[${t}\\|`) ||
        lower.includes(`[[${t}#`) ||
        lower.includes(`](${t})`) ||
        lower.includes(`](${encodeURI(t).toLowerCase()})`) ||
        lower.includes(`](<${t}>)`),
    );
    if (!hit) continue;
    const text = plainLine(line);
    if (text) out.push(text.length > MAX_CONTEXT ? `${text.slice(0, MAX_CONTEXT - 1)}…` : text);
  }
  return out;
}

/** The backlinks list of `note`: titles at once, each linking sentence as its note arrives. */
export function backlinksList(ws: Workspace, note: Note): HTMLElement {
  if (!note.backlinks.length) return h('p', { class: 'hint' }, 'No note links here yet.');
  const list = h('ul', { class: 'backlinks', 'data-testid': 'backlinks' });
  const items = note.backlinks.map((b) => {
    const context = h('div', { class: 'backlink-context' });
    const li = h(
      'li',
      { 'data-path': b.path },
      h('a', { href: `#note=${encodeURIComponent(b.path)}` }, b.title),
      context,
    );
    list.append(li);
    return { b, context };
  });
  void (async () => {
    const queue = items.slice(0, MAX_NOTES);
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        try {
          const other = await ws.api.read(item.b.path);
          const targets = other.links
            .filter((l) => l.path === note.path)
            .map((l) => l.target.trim().replace(/\\$/, ''));
          const lines = linkingLines(other.content, targets);
          mount(item.context, ...lines.map((l) => h('blockquote', { 'data-testid': 'backlink-context' }, l)));
        } catch {
          // The title is still there; the sentence is a nicety.
        }
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  })();
  return list;
}
