/**
 * Remote images in a note (tracking pixels) are held back: the rendered HTML is parsed in an inert
 * <template> (nothing loads there), every image from another origin loses its `src`, and only the
 * per-note "Load remote images" action fetches them (no cookies, no referrer) and shows them as
 * blob: URLs. The page's CSP (`img-src 'self' data: blob:`) backs this up: no remote image can
 * load even if this code missed one.
 */

const REMOTE_ATTR = 'data-remote-src';

/** True when `src` names an image outside this page's origin. */
function isRemote(src: string): boolean {
  try {
    return new URL(src, location.href).origin !== location.origin;
  } catch {
    return false;
  }
}

/** Puts `html` into `target` with remote images held back; returns how many were held back. */
export function mountNoteHtml(target: HTMLElement, html: string): number {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  let held = 0;
  for (const img of tpl.content.querySelectorAll('img')) {
    const src = img.getAttribute('src');
    if (src === null || !isRemote(src)) continue;
    img.removeAttribute('src');
    img.removeAttribute('srcset');
    img.setAttribute(REMOTE_ATTR, src);
    img.classList.add('remote-held');
    img.title = `Remote image not loaded: ${src}`;
    held += 1;
  }
  target.replaceChildren(tpl.content);
  return held;
}

/**
 * Loads the held-back images of `target`: each is fetched without credentials or referrer and
 * shown from a blob: URL; one whose server refuses (or forbids CORS) becomes a link to it.
 */
export async function loadRemoteImages(target: HTMLElement): Promise<{ loaded: number; failed: number }> {
  let loaded = 0;
  let failed = 0;
  await Promise.all(
    [...target.querySelectorAll<HTMLImageElement>(`img[${REMOTE_ATTR}]`)].map(async (img) => {
      const src = img.getAttribute(REMOTE_ATTR)!;
      try {
        const res = await fetch(src, { mode: 'cors', credentials: 'omit', referrerPolicy: 'no-referrer' });
        if (!res.ok) throw new Error(String(res.status));
        img.src = URL.createObjectURL(await res.blob());
        img.removeAttribute(REMOTE_ATTR);
        img.classList.remove('remote-held');
        img.removeAttribute('title');
        loaded += 1;
      } catch {
        const a = document.createElement('a');
        a.href = src;
        a.target = '_blank';
        a.rel = 'noopener noreferrer';
        a.textContent = `open image: ${img.alt || src}`;
        img.replaceWith(a);
        failed += 1;
      }
    }),
  );
  return { loaded, failed };
}
