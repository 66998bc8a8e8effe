import type { LinkRef } from './link-graph.ts';
import type { LinkOccurrence } from './markdown.ts';
import { dirname, stem } from './paths.ts';

/** Relative path from folder `fromDir` to file `to` (`a/b`, `a/c/n.md` -> `../c/n.md`). */
export function relativePath(fromDir: string, to: string): string {
  const a = fromDir ? fromDir.split('/') : [];
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  return [...Array(a.length - i).fill('..'), ...b.slice(i)].join('/');
}

const encodeSegment = (s: string): string =>
  encodeURIComponent(s).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Rewrites, in `text` of note `src`, every link occurrence for which `points(link)` holds so it
 * points at `to`. Headings, aliases, link text and embed marks are kept.
 */
export function rewriteLinks(
  text: string,
  src: string,
  occurrences: readonly LinkOccurrence[],
  points: (l: LinkRef) => boolean,
  opts: { to: string; nameIsUnique: boolean },
): string {
  let out = text;
  const sorted = [...occurrences].sort((x, y) => y.start - x.start);
  for (const o of sorted) {
    if (!points(o)) continue;
    const raw = out.slice(o.start, o.end);
    let next: string;
    if (o.kind === 'markdown') {
      const at = raw.lastIndexOf('](');
      if (at < 0) continue; // reference-style link: its definition is shared, leave it
      const rest = raw.slice(at + 2);
      const m = /^(\s*<?)([^\s>)]*)/.exec(rest);
      if (!m) continue;
      const dest = m[2] ?? '';
      const hash = dest.indexOf('#');
      const anchor = hash >= 0 ? dest.slice(hash) : '';
      const target = dest.startsWith('/') ? `/${opts.to}` : relativePath(dirname(src), opts.to);
      const url =
        target
          .split('/')
          .map((s) => (s === '..' ? s : encodeSegment(s)))
          .join('/') + anchor;
      next = `${raw.slice(0, at + 2)}${m[1]}${url}${rest.slice(m[0].length)}`;
    } else {
      const keepExt = o.target.toLowerCase().endsWith('.md');
      let ref = opts.nameIsUnique && !o.target.includes('/') ? stem(opts.to) : opts.to.slice(0, -3);
      if (keepExt) ref += '.md';
      next = `${o.kind === 'embed' ? '!' : ''}[[${ref}${o.heading ? `#${o.heading}` : ''}${o.alias ? `|${o.alias}` : ''}]]`;
    }
    out = out.slice(0, o.start) + next + out.slice(o.end);
  }
  return out;
}
