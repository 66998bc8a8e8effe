/**
 * The frame of every published page: no script, one stylesheet inline (allowed by its hash in the
 * page's Content-Security-Policy), every text escaped by the caller or by `esc`.
 */
import { toBase64 } from '../crypto.ts';
import { esc } from './escape.ts';

const CSS = `:root{color-scheme:light dark}body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;color:#1d1d1f;background:#fff}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;border-bottom:1px solid #ddd;padding-bottom:.5rem}
header form{display:flex;gap:.25rem}input,button{font:inherit;padding:.2rem .5rem}
a{color:#0b57d0}.unpublished{color:#555}img{max-width:100%}pre{overflow:auto;background:#f5f5f5;padding:.5rem}
code{background:#f5f5f5}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .4rem}
footer{margin-top:2rem;color:#666;font-size:.85rem}.hit p{margin:.2rem 0 1rem}
@media (prefers-color-scheme:dark){body{background:#111;color:#eee}a{color:#8ab4f8}.unpublished{color:#aaa}pre,code{background:#222}}`;

let styleHash: Promise<string> | null = null;

/**
 * The CSP of a published page: nothing but its own stylesheet, its images, and its forms. `data:`
 * images only for the empty icon (which spares a request for /favicon.ico): micromark never emits one.
 */
export function pageCsp(): Promise<string> {
  styleHash ??= crypto.subtle
    .digest('SHA-256', new TextEncoder().encode(CSS))
    .then((d) => `sha256-${toBase64(new Uint8Array(d))}`);
  return styleHash.then(
    (h) =>
      `default-src 'none'; style-src '${h}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  );
}

/** What a page shows inside the frame. */
export interface PageParts {
  /** The document's title (plain text). */
  title: string;
  /** The site's name in the header (plain text). */
  site: string;
  /** The main content, already HTML. */
  main: string;
  /** Relative href of the publication's root (`./`, `../`, ...); null: no header links. */
  root: string | null;
  noindex: boolean;
  /** The search box's value. */
  q?: string;
}

/** The whole HTML document. */
export function layout(p: PageParts): string {
  const robots = p.noindex ? '<meta name="robots" content="noindex, nofollow">' : '';
  const header =
    p.root === null
      ? ''
      : `<header><a href="${esc(p.root)}">${esc(p.site)}</a><form action="${esc(p.root)}_search" method="get" role="search"><input type="search" name="q" aria-label="Search" value="${esc(p.q ?? '')}" maxlength="500"><button type="submit">Search</button></form></header>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">${robots}<title>${esc(p.title)}</title><style>${CSS}</style></head><body>${header}<main>${p.main}</main><footer>Published read-only with Quire.</footer></body></html>`;
}
