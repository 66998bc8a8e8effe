/**
 * Mermaid diagrams, loaded only when a note has a ```mermaid block. Mermaid sanitizes its SVG
 * (strict security level, no click handlers or HTML labels that run script).
 *
 * The page's policy (`style-src 'self'`) refuses inline styles: `style` attributes and `<style>`
 * elements. Mermaid writes both while it draws (d3's `attr('style', …)`) and in the SVG it
 * returns. While it draws, a `style` attribute written through `setAttribute` goes to the
 * element's CSSOM instead (the same declarations; scripts may set styles that way under any
 * policy). Its SVG is parsed in an inert document, its `style` attributes moved to the CSSOM and
 * its `<style>` rules to a constructed style sheet, before it joins the page.
 */
import mermaid from 'mermaid';

let theme: string | null = null;
let count = 0;

const STYLE_ATTR = /(<[^>]*?\s)style=/gi;
/** Markup with each `style=` attribute renamed, so parsing it applies no inline style. */
const parked = (html: string) => html.replace(STYLE_ATTR, '$1data-quire-style=');

/** Moves the parked styles under `root` (and its own) to the CSSOM. */
function unpark(root: Element | DocumentFragment): void {
  const all =
    root instanceof Element
      ? [root, ...root.querySelectorAll('[data-quire-style]')]
      : [...root.querySelectorAll('[data-quire-style]')];
  for (const el of all) {
    const css = el.getAttribute('data-quire-style');
    if (css === null) continue;
    el.removeAttribute('data-quire-style');
    if (el instanceof HTMLElement || el instanceof SVGElement) el.style.cssText = css;
  }
}

/** A `<style>` element's rules as a constructed sheet of the page. */
function adoptRules(css: string): void {
  if (!css.trim()) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/**
 * Runs `fn` (Mermaid drawing) with inline styles kept away from the page's policy: a `style`
 * attribute set by `setAttribute` goes to the element's CSSOM; markup written or read through
 * `innerHTML` has its `style=` attributes parked (renamed) and, once parsed, moved to the CSSOM; a
 * `<style>` element about to join the page becomes a constructed sheet instead. The same styles
 * apply (Mermaid measures its labels with them), and the policy sees no inline style.
 */
async function stylesThroughCssom<T>(fn: () => Promise<T>): Promise<T> {
  const el = Element.prototype;
  const node = Node.prototype;
  const set = el.setAttribute;
  const inner = Object.getOwnPropertyDescriptor(el, 'innerHTML')!;
  const insertBefore = node.insertBefore;
  const appendChild = node.appendChild;
  const isStyle = (n: Node) => n instanceof HTMLStyleElement || n instanceof SVGStyleElement;
  el.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === 'style' && (this instanceof HTMLElement || this instanceof SVGElement)) {
      this.style.cssText = String(value);
      return;
    }
    set.call(this, name, value);
  };
  Object.defineProperty(el, 'innerHTML', {
    ...inner,
    // Mermaid reads its SVG back through here and hands it to DOMPurify, whose parse would apply
    // the `style` attributes (DOMPurify refuses a patched DOMParser, so the markup is parked first).
    get(this: Element) {
      return parked(inner.get!.call(this));
    },
    set(this: Element, html: string) {
      if (isStyle(this)) return inner.set!.call(this, html);
      inner.set!.call(this, parked(String(html)));
      unpark(this);
    },
  });
  node.insertBefore = function <N extends Node>(this: Node, n: N, ref: Node | null): N {
    if (isStyle(n) && this.isConnected) {
      adoptRules(n.textContent ?? '');
      return n;
    }
    return insertBefore.call(this, n, ref) as N;
  };
  node.appendChild = function <N extends Node>(this: Node, n: N): N {
    if (isStyle(n) && this.isConnected) {
      adoptRules(n.textContent ?? '');
      return n;
    }
    return appendChild.call(this, n) as N;
  };
  try {
    return await fn();
  } finally {
    el.setAttribute = set;
    Object.defineProperty(el, 'innerHTML', inner);
    node.insertBefore = insertBefore;
    node.appendChild = appendChild;
  }
}

/** Mermaid's SVG as page nodes with no inline style: attributes to the CSSOM, rules to a sheet. */
function importSvg(svg: string): Element {
  const parsed = new DOMParser().parseFromString(parked(svg), 'image/svg+xml').documentElement;
  const rules = [...parsed.querySelectorAll('style')].map((s) => {
    s.remove();
    return s.textContent ?? '';
  });
  adoptRules(rules.join('\n'));
  const node = document.importNode(parsed, true);
  unpark(node);
  // A wide graph keeps a readable size and scrolls in its own box (a phone would shrink it to
  // unreadable text): render.css reads its natural width from this property.
  const natural = node instanceof SVGSVGElement ? (node.viewBox.baseVal?.width ?? 0) : 0;
  if (natural > 0 && node instanceof SVGElement) node.style.setProperty('--natural-width', `${natural}px`);
  return node;
}

/** One drawing at a time: the prototypes are patched for one render and restored after it. */
let queue: Promise<void> = Promise.resolve();

/** Replaces each mermaid code block by its diagram; a diagram that fails keeps the code with a note. */
export function renderDiagrams(blocks: HTMLElement[], dark: boolean): Promise<void> {
  const run = queue.then(() => drawAll(blocks, dark));
  queue = run.catch(() => {});
  return run;
}

async function drawAll(blocks: HTMLElement[], dark: boolean): Promise<void> {
  const wanted = dark ? 'dark' : 'default';
  if (theme !== wanted) {
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: wanted,
      htmlLabels: false,
      flowchart: { htmlLabels: false },
    });
    theme = wanted;
  }
  for (const pre of blocks) {
    if (!pre.isConnected) continue; // the note was left while an earlier drawing ran
    const source = pre.textContent ?? '';
    const id = `quire-mermaid-${++count}`;
    try {
      const { svg } = await stylesThroughCssom(() => mermaid.render(id, source));
      const box = document.createElement('figure');
      box.className = 'mermaid-diagram';
      box.dataset.testid = 'mermaid';
      // It may scroll sideways (a wide graph): reachable by keyboard, and named.
      box.tabIndex = 0;
      box.setAttribute('aria-label', 'Diagram');
      box.append(importSvg(svg));
      pre.replaceWith(box);
    } catch (err) {
      document.getElementById(`d${id}`)?.remove();
      const note = document.createElement('p');
      note.className = 'embed-missing';
      note.textContent = `⚠ This diagram could not be drawn: ${(err as Error).message ?? err}`;
      pre.after(note);
    }
  }
}
