import { basename, dirname, stem } from '../paths.ts';
import type { LinkRef } from './link-graph.ts';
import type { LinkOccurrence } from './markdown/types.ts';

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

/** The new text of one link occurrence pointing at `to`, or null to leave it as written. */
function rewriteOne(
  raw: string,
  o: LinkOccurrence,
  src: string,
  opts: { to: string; nameIsUnique: boolean },
) {
  if (o.kind === 'markdown') {
    const at = raw.lastIndexOf('](');
    if (at < 0) return null; // reference-style link: its definition is shared, leave it
    const rest = raw.slice(at + 2);
    // `(<a b.png>)`: the destination in angle brackets may hold spaces; written back encoded.
    const m = /^(\s*)(<[^>\n]*>|[^\s)]*)/.exec(rest);
    if (!m) return null;
    const written = m[2] ?? '';
    const dest = written.startsWith('<') ? written.slice(1, -1) : written;
    const hash = dest.indexOf('#');
    const anchor = hash >= 0 ? dest.slice(hash) : '';
    const target = dest.startsWith('/') ? `/${opts.to}` : relativePath(dirname(src), opts.to);
    const url =
      target
        .split('/')
        .map((s) => (s === '..' ? s : encodeSegment(s)))
        .join('/') + anchor;
    return `${raw.slice(0, at + 2)}${m[1]}${url}${rest.slice(m[0].length)}`;
  }
  const bare = opts.nameIsUnique && !o.target.includes('/');
  let ref: string;
  if (!opts.to.toLowerCase().endsWith('.md'))
    ref = bare ? basename(opts.to) : opts.to; // a file
  else {
    ref = bare ? stem(opts.to) : opts.to.slice(0, -3);
    if (o.target.toLowerCase().endsWith('.md')) ref += '.md';
  }
  return `${o.kind === 'embed' ? '!' : ''}[[${ref}${o.heading ? `#${o.heading}` : ''}${o.alias ? `|${o.alias}` : ''}]]`;
}

/** Occurrences rewritten between two yields to the event loop. */
const SLICE = 1024;

type RewriteOpts = { to: string; nameIsUnique: boolean };

/**
 * The one pass: the pieces between occurrences are copied once and joined at the end (linear in
 * the note's size, however many links it holds). Yields (as a generator) every SLICE occurrences;
 * returns the new text. Overlapping occurrences (never produced by the parser) are left as written.
 */
function* rewritePass(
  text: string,
  src: string,
  occurrences: readonly LinkOccurrence[],
  points: (l: LinkRef) => boolean,
  opts: RewriteOpts,
): Generator<void, string> {
  const inOrder = occurrences.every((o, i) => i === 0 || occurrences[i - 1]!.start <= o.start);
  const sorted = inOrder ? occurrences : [...occurrences].sort((x, y) => x.start - y.start);
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && i % SLICE === 0) yield;
    const o = sorted[i]!;
    if (o.start < copied || !points(o)) continue;
    const next = rewriteOne(text.slice(o.start, o.end), o, src, opts);
    if (next === null) continue;
    parts.push(text.slice(copied, o.start), next);
    copied = o.end;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/**
 * Rewrites, in `text` of note `src`, every link occurrence for which `points(link)` holds so it
 * points at `to`. Headings, aliases, link text and embed marks are kept. Linear in the note's size.
 */
export function rewriteLinks(
  text: string,
  src: string,
  occurrences: readonly LinkOccurrence[],
  points: (l: LinkRef) => boolean,
  opts: RewriteOpts,
): string {
  const pass = rewritePass(text, src, occurrences, points, opts);
  for (;;) {
    const step = pass.next();
    if (step.done) return step.value;
  }
}

/** `rewriteLinks` that awaits `pause()` every few thousand occurrences, so long work yields. */
export async function rewriteLinksYielding(
  text: string,
  src: string,
  occurrences: readonly LinkOccurrence[],
  points: (l: LinkRef) => boolean,
  opts: RewriteOpts & { pause: () => Promise<void> },
): Promise<string> {
  const pass = rewritePass(text, src, occurrences, points, opts);
  for (;;) {
    const step = pass.next();
    if (step.done) return step.value;
    await opts.pause();
  }
}
