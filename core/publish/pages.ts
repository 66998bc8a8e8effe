/**
 * The pages of one publication, decided in the core so no adapter can widen them: which notes
 * exist for its readers (`see`), how a URL below `/p/<id>/` maps to a note, the index, a note,
 * search, and which attachments it serves (those its notes embed, nothing else). Each answer is
 * built only from what the publication shows; links are resolved among its notes alone.
 */
import { sha256Hex } from '../crypto.ts';
import { DomainError } from '../errors.ts';
import { contentTypeOf, isImageType } from '../files/content-types.ts';
import type { NoteLink } from '../notes/note-index.ts';
import type { NoteService } from '../notes/service.ts';
import { basename } from '../paths.ts';
import { esc } from './escape.ts';
import { layout } from './layout.ts';
import { publishes } from './service.ts';
import type { Publication } from './types.ts';

/** The longest path below `/p/<id>/` a page request may carry. */
export const MAX_PAGE_PATH = 1024;

/** An HTML answer; the route adds validators and headers. */
export interface Page {
  status: number;
  html: string;
  /** ISO instant of the newest note shown, for Last-Modified. */
  updatedAt?: string;
}

const isNote = (p: string) => p.toLowerCase().endsWith('.md');

/** Per publication, one `see` function object (search caches its visible set by that object). */
interface View {
  see: (p: string) => boolean;
  links: (p: string) => boolean;
  /** Note pages as rendered, for one vault generation (any change of the vault drops them). */
  pages: { generation: number; byKey: Map<string, Promise<Page>>; chars: number };
}
const views = new WeakMap<Publication, View>();

/**
 * Rendered pages kept per publication. Anyone with the link may ask a page again and again, and
 * rendering one costs far more than serving it (a 27 KB note: about 250 ms of micromark, GC
 * included, on this machine), so a page is rendered once per vault generation.
 */
const PAGES_KEPT = 256;
/** And at most this much HTML (UTF-16 code units, about 2 bytes each) per publication. */
const PAGE_CHARS_KEPT = 8 * 1024 * 1024;

/**
 * A number per note service that every change of the vault bumps: a page depends on its note and
 * on which notes its links reach, so any change may alter it.
 */
const generations = new WeakMap<NoteService, { n: number }>();
function generationOf(notes: NoteService): number {
  let g = generations.get(notes);
  if (!g) {
    const counter = { n: 0 };
    notes.subscribe(() => {
      counter.n++;
    });
    generations.set(notes, counter);
    g = counter;
  }
  return g.n;
}

/** The decoded segments of `raw` (the path below `/p/<id>/`); INVALID_PATH for anything odd. */
export function pageSegments(raw: string): string[] {
  if (raw.length > MAX_PAGE_PATH) throw new DomainError('URI_TOO_LONG', 'That address is too long.');
  if (raw === '') return [];
  return raw.split('/').map((seg) => {
    let d: string;
    try {
      d = decodeURIComponent(seg);
    } catch {
      throw new DomainError('INVALID_PATH', 'That address is not valid.');
    }
    if (d === '' || d === '.' || d === '..' || /[/\\\p{Cc}]/u.test(d))
      throw new DomainError('INVALID_PATH', 'That address is not valid.');
    return d;
  });
}

/** What the publication `pub` shows, over the vault's note service. */
export function publishedSite(pub: Publication, notes: NoteService) {
  let v: View | undefined = views.get(pub);
  if (!v) {
    const see = (p: string) => isNote(p) && publishes(pub, p) && notes.indexedSummary(p) !== null;
    // Links resolve among the published notes and the vault's attachments (served only when embedded).
    v = {
      see,
      links: (p: string) => see(p) || !isNote(p),
      pages: { generation: -1, byKey: new Map(), chars: 0 },
    };
    views.set(pub, v);
  }
  const view = v;
  const { see } = view;
  const linkSee = view.links;
  const site =
    pub.kind === 'note' ? basename(pub.path).slice(0, -3) : basename(pub.path.slice(0, -1)) || 'Notes';
  const relOf = (path: string) => (pub.kind === 'note' ? basename(path) : path.slice(pub.path.length));
  const href = (root: string, path: string) =>
    root + relOf(path).split('/').map(encodeURIComponent).join('/');
  const rootFor = (depth: number) => (depth === 0 ? './' : '../'.repeat(depth));
  const page = (status: number, title: string, main: string, root: string | null, q?: string): Page => ({
    status,
    html: layout({ title, site, main, root, noindex: pub.noindex, ...(q === undefined ? {} : { q }) }),
  });

  /** The attachments a note's links embed (wiki embeds; markdown links to images). */
  const embedded = (links: readonly NoteLink[]) =>
    links
      .filter(
        (l) =>
          l.path !== null &&
          !isNote(l.path) &&
          (l.kind === 'embed' || (l.kind === 'markdown' && isImageType(contentTypeOf(l.path)))),
      )
      .map((l) => l.path as string);

  const fileToken = async (path: string) => (await sha256Hex(`${pub.id}\n${path}`)).slice(0, 24);

  /** The page of `path` at `depth`, rendered once per vault generation (see PAGES_KEPT). */
  const notePage = (path: string, depth: number): Promise<Page> => {
    const kept = view.pages;
    const generation = generationOf(notes);
    if (kept.generation !== generation || kept.byKey.size >= PAGES_KEPT || kept.chars > PAGE_CHARS_KEPT) {
      kept.generation = generation;
      kept.byKey.clear();
      kept.chars = 0;
    }
    const key = `${depth}\n${path}`;
    let p = kept.byKey.get(key);
    if (!p) {
      const rendering = renderNotePage(path, depth);
      p = rendering;
      kept.byKey.set(key, rendering);
      rendering.then(
        (page) => {
          if (kept.byKey.get(key) === rendering) kept.chars += page.html.length;
        },
        // A failed render (the note gone meanwhile) is not kept: the next request asks again.
        () => {
          if (kept.byKey.get(key) === rendering) kept.byKey.delete(key);
        },
      );
    }
    return p;
  };

  const renderNotePage = async (path: string, depth: number): Promise<Page> => {
    const note = await notes.get(path);
    const seen = notes.seenAs(note, linkSee);
    const root = rootFor(depth);
    const tokens = new Map<string, string>();
    for (const f of embedded(seen.links)) tokens.set(f, await fileToken(f));
    // The renderer (micromark) is loaded by the first page, never by the server's start.
    const { renderPublished } = await import('./render.ts');
    const body = renderPublished(
      { path, title: note.title, content: note.content },
      {
        links: seen.links,
        published: see,
        noteHref: (p) => href(root, p),
        fileHref: (p) => {
          const t = tokens.get(p);
          return t ? `${root}_files/${t}/${encodeURIComponent(basename(p))}` : null;
        },
      },
    );
    const main = `<article><h1>${esc(note.title)}</h1>${body}<p><small>Updated <time datetime="${esc(note.updatedAt)}">${esc(note.updatedAt.slice(0, 10))}</time></small></p></article>`;
    return { ...page(200, note.title, main, root), updatedAt: note.updatedAt };
  };

  const listed = () => notes.list().items.filter((s) => see(s.path));

  return {
    see,
    /** A page below the root: `[]` the index, `[..., 'x.md']` a note; null when there is none. */
    async page(segments: string[]): Promise<Page | null> {
      if (segments.length === 0) {
        if (pub.kind === 'note') return see(pub.path) ? notePage(pub.path, 0) : null;
        const items = listed();
        const newest = items.reduce((m, s) => (s.updatedAt > m ? s.updatedAt : m), '');
        const main = items.length
          ? `<h1>${esc(site)}</h1><ul>${items.map((s) => `<li><a href="${esc(href('./', s.path))}">${esc(s.title)}</a> <small>${esc(relOf(s.path))}</small></li>`).join('')}</ul>`
          : `<h1>${esc(site)}</h1><p>Nothing is published here yet.</p>`;
        return { ...page(200, site, main, './'), ...(newest ? { updatedAt: newest } : {}) };
      }
      const rel = segments.join('/');
      if (!isNote(rel)) return null;
      const path = pub.kind === 'note' ? (rel === basename(pub.path) ? pub.path : null) : pub.path + rel;
      if (path === null || !see(path)) return null;
      return notePage(path, segments.length - 1);
    },

    /** Search among the published notes only. */
    async search(q: string): Promise<Page> {
      const query = q.trim().slice(0, 500);
      if (!query)
        return page(200, `Search · ${site}`, '<h1>Search</h1><p>Type words to look for.</p>', './', '');
      const hits = (await notes.search(query, 20, { see })).filter((h) => h.type === 'note' && see(h.path));
      const main = hits.length
        ? `<h1>Search</h1><p>${hits.length} result${hits.length === 1 ? '' : 's'}</p>${hits.map((h) => `<div class="hit"><a href="${esc(href('./', h.path))}">${esc(h.title)}</a><p>${esc(h.snippet)}</p></div>`).join('')}`
        : '<h1>Search</h1><p>No published note matches.</p>';
      return page(200, `Search · ${site}`, main, './', query);
    },

    /** The vault path of a served attachment by its token; null when no published note embeds it. */
    async file(token: string): Promise<string | null> {
      if (!/^[0-9a-f]{24}$/.test(token)) return null;
      for (const s of listed())
        for (const f of embedded(notes.seenAs(s, linkSee).links))
          if ((await fileToken(f)) === token) return f;
      return null;
    },

    /** An error or lock page in the publication's frame. */
    message: (status: number, title: string, main: string, root: string | null) =>
      page(status, title, main, root),
  };
}

/** A page for a request that names no publication (unknown, revoked or expired). */
export function bareMessage(status: number, title: string, text: string): Page {
  return {
    status,
    html: layout({
      title,
      site: '',
      main: `<h1>${esc(title)}</h1><p>${esc(text)}</p>`,
      root: null,
      noindex: true,
    }),
  };
}
