/**
 * `> [!type]± Title` blockquotes as Obsidian's callouts: each type (and its aliases) with its own
 * colour (render.css, `--callout-<type>`) and icon, the whole title with its inline markup, `-`
 * folded closed and `+` open. Only rearranges what micromark produced.
 */
import { h } from './dom.ts';

/** Obsidian's aliases of the callout types. */
const ALIAS: Record<string, string> = {
  summary: 'abstract',
  tldr: 'abstract',
  hint: 'tip',
  important: 'tip',
  check: 'success',
  done: 'success',
  help: 'question',
  faq: 'question',
  caution: 'warning',
  attention: 'warning',
  fail: 'failure',
  missing: 'failure',
  error: 'danger',
  cite: 'quote',
};

/** An icon per type (outline glyphs, drawn with SVG paths on a 24-unit box). */
const ICON: Record<string, string> = {
  note: 'M4 20h4L19 9l-4-4L4 16v4zM13 7l4 4',
  abstract: 'M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01',
  info: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM12 16v-4M12 8h.01',
  todo: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM8 12l3 3 5-6',
  tip: 'M12 2c1 4 6 6 6 12a6 6 0 0 1-12 0c0-3 2-5 3-6 0 3 1 4 3 4-1-3-1-7 0-10z',
  success: 'M4 12l5 5L20 6',
  question: 'M12 22a10 10 0 1 0 0-20 10 10 0 0 0 0 20zM9 9a3 3 0 1 1 4 3c-1 .5-1 1-1 2M12 17h.01',
  warning: 'M12 3l10 18H2L12 3zM12 10v4M12 18h.01',
  failure: 'M6 6l12 12M18 6L6 18',
  danger: 'M13 2L4 14h7l-1 8 9-12h-7l1-8z',
  bug: 'M8 8a4 4 0 0 1 8 0v8a4 4 0 0 1-8 0V8zM4 10h4M16 10h4M4 16h4M16 16h4M12 8v12',
  example: 'M4 6h16M4 12h16M4 18h10',
  quote: 'M6 17c2 0 3-2 3-4V7H4v6h3M15 17c2 0 3-2 3-4V7h-5v6h3',
};

/** The canonical type of a written callout type (unknown types look like `note`). */
export function calloutType(written: string): { type: string; known: boolean } {
  const t = written.toLowerCase();
  const type = ALIAS[t] ?? t;
  return { type, known: type in ICON };
}

function icon(type: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'callout-icon');
  svg.setAttribute('aria-hidden', 'true');
  svg.dataset.icon = type;
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICON[type] ?? ICON.note!);
  svg.append(path);
  return svg;
}

/** Moves the rest of `first`'s first line (text and inline markup, up to a line break) out. */
function takeTitle(first: Element): Node[] {
  const out: Node[] = [];
  for (let n = first.firstChild; n; ) {
    const next = n.nextSibling;
    if (n.nodeName === 'BR') {
      n.remove();
      break;
    }
    if (n.nodeType === Node.TEXT_NODE && (n.nodeValue ?? '').includes('\n')) {
      const v = n.nodeValue ?? '';
      const cut = v.indexOf('\n');
      out.push(document.createTextNode(v.slice(0, cut)));
      n.nodeValue = v.slice(cut + 1);
      break;
    }
    out.push(n);
    n = next;
  }
  return out;
}

/** Turns every callout blockquote under `root` into a callout box. */
export function callouts(root: HTMLElement): void {
  for (const quote of [...root.querySelectorAll('blockquote')]) {
    const first = quote.firstElementChild;
    const text = first?.tagName === 'P' ? first.firstChild : null;
    if (!first || !text || text.nodeType !== Node.TEXT_NODE) continue;
    const m = /^\[!([\w-]+)\]([+-]?)[ \t]*/.exec(text.nodeValue ?? '');
    if (!m) continue;
    const written = m[1]!.toLowerCase();
    const { type, known } = calloutType(written);
    text.nodeValue = (text.nodeValue ?? '').slice(m[0].length);
    const titleNodes = takeTitle(first);
    const titleText = titleNodes
      .map((n) => n.textContent ?? '')
      .join('')
      .trim();
    if (!first.textContent?.trim() && first.children.length === 0) first.remove();
    const title = h('span', { class: 'callout-title-inner' });
    if (titleText) {
      title.append(...titleNodes);
      // Leading space of the first text node (after the marker) is no part of the title.
      if (title.firstChild?.nodeType === Node.TEXT_NODE)
        title.firstChild.nodeValue = (title.firstChild.nodeValue ?? '').trimStart();
    } else title.textContent = written.charAt(0).toUpperCase() + written.slice(1);
    const content = h('div', { class: 'callout-content' }, ...[...quote.childNodes]);
    const fold = m[2];
    const attrs = { class: 'callout', 'data-callout': type, 'data-callout-known': String(known) };
    const head = [icon(known ? type : 'note'), title];
    const box = fold
      ? h(
          'details',
          { ...attrs, open: fold === '+' },
          h('summary', { class: 'callout-title' }, ...head),
          content,
        )
      : h('div', attrs, h('div', { class: 'callout-title' }, ...head), content);
    quote.replaceWith(box);
  }
}
