/**
 * Live preview for the CodeMirror editor, as Obsidian and SilverBullet do it: on every line but
 * the ones holding the cursor, markup is hidden (heading marks, emphasis marks, link targets,
 * `[[`/`]]`, code ticks) and the line reads as it will render (headings sized, tasks as
 * checkboxes, callouts titled, math drawn). Put the cursor on a line and its source is back.
 * Decorations only: the text is never changed, except by a click on a task's box.
 */
import { syntaxTree } from '@codemirror/language';
import type { EditorState, Range } from '@codemirror/state';
import {
  Decoration,
  type DecorationSet,
  EditorView,
  ViewPlugin,
  type ViewUpdate,
  WidgetType,
} from '@codemirror/view';

/** KaTeX, loaded with the first formula on screen; MathML output needs no stylesheet. */
let katex: Promise<typeof import('katex').default> | null = null;

class MathWidget extends WidgetType {
  constructor(
    readonly tex: string,
    readonly display: boolean,
  ) {
    super();
  }
  override eq(other: MathWidget) {
    return other.tex === this.tex && other.display === this.display;
  }
  toDOM() {
    const span = document.createElement('span');
    span.className = 'cm-lp-math';
    span.textContent = this.tex;
    katex ??= import('katex').then((m) => m.default);
    void katex.then((k) => {
      try {
        k.render(this.tex, span, {
          displayMode: this.display,
          output: 'mathml',
          throwOnError: false,
          trust: false,
          strict: 'ignore',
        });
      } catch {
        span.textContent = this.tex;
      }
    });
    return span;
  }
}

class CheckboxWidget extends WidgetType {
  constructor(
    readonly checked: boolean,
    readonly at: number,
  ) {
    super();
  }
  override eq(other: CheckboxWidget) {
    return other.checked === this.checked && other.at === this.at;
  }
  toDOM(view: EditorView) {
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.className = 'cm-lp-task';
    box.checked = this.checked;
    box.setAttribute('aria-label', this.checked ? 'Done task' : 'Open task');
    box.addEventListener('mousedown', (e) => e.preventDefault());
    box.addEventListener('click', () => {
      view.dispatch({ changes: { from: this.at, to: this.at + 1, insert: this.checked ? ' ' : 'x' } });
    });
    return box;
  }
  override ignoreEvent() {
    return false;
  }
}

class TextWidget extends WidgetType {
  constructor(
    readonly text: string,
    readonly cls: string,
  ) {
    super();
  }
  override eq(other: TextWidget) {
    return other.text === this.text && other.cls === this.cls;
  }
  toDOM() {
    const span = document.createElement('span');
    span.className = this.cls;
    span.textContent = this.text;
    return span;
  }
}

const hide = Decoration.replace({});
const mark = (cls: string) => Decoration.mark({ class: cls });
const line = (cls: string) => Decoration.line({ class: cls });

/** Lines (their starts) that hold a cursor or a selection: their markup stays visible. */
function activeLines(state: EditorState): Set<number> {
  const out = new Set<number>();
  for (const r of state.selection.ranges) {
    for (let pos = state.doc.lineAt(r.from).from; pos <= r.to; ) {
      const l = state.doc.lineAt(pos);
      out.add(l.from);
      pos = l.to + 1;
    }
  }
  return out;
}

const CALLOUT = /^(\s*>\s*)\[!([A-Za-z-]+)\]([+-]?)\s?/;
const WIKI = /(!?)\[\[([^\]\n|]+?)(?:\|([^\]\n]+?))?\]\]/g;
const TAG = /(^|[\s(])(#[\p{L}\p{N}_/-]*\p{L}[\p{L}\p{N}_/-]*)/gu;
const MATH = /(\$\$?)(?!\s)([^$\n]+?)(?<!\s)\1/g;
/** Nodes whose text is code: no wiki-links, tags or math inside them. */
const CODE = new Set(['InlineCode', 'FencedCode', 'CodeBlock', 'HTMLBlock', 'CodeText', 'URL']);

/** The decorations of the visible ranges. */
function build(view: EditorView): DecorationSet {
  const { state } = view;
  const active = activeLines(state);
  const isActive = (pos: number) => active.has(state.doc.lineAt(pos).from);
  const out: Range<Decoration>[] = [];
  const code: [number, number][] = [];
  for (const { from, to } of view.visibleRanges) {
    syntaxTree(state).iterate({
      from,
      to,
      enter(node) {
        const name = node.name;
        if (CODE.has(name)) code.push([node.from, node.to]);
        const heading = /^ATXHeading(\d)$/.exec(name);
        if (heading) {
          out.push(line(`cm-lp-h cm-lp-h${heading[1]}`).range(state.doc.lineAt(node.from).from));
          return;
        }
        if (name === 'FencedCode') {
          for (let pos = node.from; pos <= node.to; ) {
            const l = state.doc.lineAt(pos);
            out.push(line('cm-lp-codeblock').range(l.from));
            pos = l.to + 1;
          }
          return false;
        }
        if (name === 'HorizontalRule' && !isActive(node.from)) {
          out.push(line('cm-lp-hr').range(state.doc.lineAt(node.from).from));
          out.push(hide.range(node.from, node.to));
          return;
        }
        if (name === 'Blockquote') {
          for (let pos = node.from; pos <= node.to; ) {
            const l = state.doc.lineAt(pos);
            const callout = CALLOUT.exec(state.doc.sliceString(node.from, state.doc.lineAt(node.from).to));
            out.push(
              line(
                callout ? `cm-lp-callout cm-lp-callout-${callout[2]!.toLowerCase()}` : 'cm-lp-quote',
              ).range(l.from),
            );
            pos = l.to + 1;
          }
          return;
        }
        if (isActive(node.from)) return;
        switch (name) {
          case 'HeaderMark': {
            const after = state.doc.sliceString(node.to, node.to + 1) === ' ' ? 1 : 0;
            out.push(hide.range(node.from, node.to + after));
            return;
          }
          case 'EmphasisMark':
          case 'CodeMark':
          case 'StrikethroughMark':
            if (name === 'CodeMark' && node.node.parent?.name === 'FencedCode') return;
            out.push(hide.range(node.from, node.to));
            return;
          case 'QuoteMark': {
            const after = state.doc.sliceString(node.to, node.to + 1) === ' ' ? 1 : 0;
            out.push(hide.range(node.from, node.to + after));
            return;
          }
          case 'Link': {
            // [text](url "title"): the text alone, marked as a link.
            const marks = node.node.getChildren('LinkMark');
            if (marks.length >= 2) {
              out.push(hide.range(node.from, marks[0]!.to));
              out.push(mark('cm-lp-link').range(marks[0]!.to, marks[1]!.from));
              out.push(hide.range(marks[1]!.from, node.to));
            }
            return false;
          }
          case 'Task': {
            const marker = node.node.getChild('TaskMarker');
            const list = node.node.parent?.getChild('ListMark');
            if (marker && list) {
              const checked = /x/i.test(state.doc.sliceString(marker.from, marker.to));
              out.push(
                Decoration.replace({ widget: new CheckboxWidget(checked, marker.from + 1) }).range(
                  list.from,
                  Math.min(marker.to + 1, state.doc.lineAt(marker.from).to),
                ),
              );
              if (checked) out.push(mark('cm-lp-done').range(marker.to, node.to));
            }
            return;
          }
          case 'ListMark': {
            const text = state.doc.sliceString(node.from, node.to);
            const task = node.node.nextSibling?.name === 'Task';
            if (!task && /^[-*+]$/.test(text))
              out.push(
                Decoration.replace({ widget: new TextWidget('•', 'cm-lp-bullet') }).range(node.from, node.to),
              );
            return;
          }
        }
      },
    });
  }
  const inCode = (a: number, b: number) => code.some(([f, t]) => a < t && b > f);
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const l = state.doc.lineAt(pos);
      pos = l.to + 1;
      inlineSyntax(l.text, l.from, active.has(l.from), inCode, out);
    }
  }
  return Decoration.set(out, true);
}

/** Wiki-links, tags, math and callout titles of one line (what the markdown grammar does not know). */
function inlineSyntax(
  text: string,
  at: number,
  active: boolean,
  inCode: (a: number, b: number) => boolean,
  out: Range<Decoration>[],
): void {
  const callout = CALLOUT.exec(text);
  if (callout && !active) {
    const type = callout[2]!;
    const rest = text.slice(callout[0].length).trim();
    const title = rest ? '' : type.charAt(0).toUpperCase() + type.slice(1).toLowerCase();
    const start = at + callout[1]!.length;
    const end = at + callout[0].length;
    out.push(
      title
        ? Decoration.replace({ widget: new TextWidget(title, 'cm-lp-callout-title') }).range(start, end)
        : hide.range(start, end),
    );
    if (rest) out.push(mark('cm-lp-callout-title').range(end, at + text.length));
  }
  for (const m of text.matchAll(WIKI)) {
    const from = at + m.index;
    const to = from + m[0].length;
    if (inCode(from, to)) continue;
    const shown = m[3] ?? m[2]!;
    const textFrom = to - 2 - shown.length;
    if (active) {
      out.push(mark('cm-lp-wikilink').range(from, to));
      continue;
    }
    out.push(hide.range(from, textFrom));
    out.push(mark(m[1] ? 'cm-lp-wikilink cm-lp-embed' : 'cm-lp-wikilink').range(textFrom, to - 2));
    out.push(hide.range(to - 2, to));
  }
  for (const m of text.matchAll(TAG)) {
    const from = at + m.index + m[1]!.length;
    const to = from + m[2]!.length;
    if (!inCode(from, to)) out.push(mark('cm-lp-tag').range(from, to));
  }
  if (active) return;
  for (const m of text.matchAll(MATH)) {
    const from = at + m.index;
    const to = from + m[0].length;
    if (inCode(from, to)) continue;
    out.push(Decoration.replace({ widget: new MathWidget(m[2]!, m[1] === '$$') }).range(from, to));
  }
}

/** The live preview: decorations rebuilt as the text, the selection or the viewport change. */
export const livePreview = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = build(view);
    }
    update(u: ViewUpdate) {
      if (
        u.docChanged ||
        u.selectionSet ||
        u.viewportChanged ||
        syntaxTree(u.startState) !== syntaxTree(u.state)
      )
        this.decorations = build(u.view);
    }
  },
  { decorations: (v) => v.decorations },
);

/** How live preview reads: colours from the page's variables (light and dark alike). */
export const livePreviewTheme = EditorView.theme({
  '.cm-lp-h': { fontFamily: 'system-ui, sans-serif', fontWeight: '700', lineHeight: '1.3' },
  '.cm-lp-h1': { fontSize: '1.6em' },
  '.cm-lp-h2': { fontSize: '1.4em' },
  '.cm-lp-h3': { fontSize: '1.2em' },
  '.cm-lp-h4, .cm-lp-h5, .cm-lp-h6': { fontSize: '1.05em' },
  '.cm-lp-link, .cm-lp-wikilink': { color: 'var(--accent)', textDecoration: 'underline' },
  '.cm-lp-embed': { fontStyle: 'italic' },
  '.cm-lp-tag': {
    color: 'var(--accent)',
    background: 'var(--accent-soft)',
    borderRadius: '0.6em',
    padding: '0 0.3em',
  },
  '.cm-lp-task': { margin: '0 0.4em 0 0', verticalAlign: 'middle' },
  '.cm-lp-done': { textDecoration: 'line-through', color: 'var(--muted)' },
  '.cm-lp-bullet': { color: 'var(--muted)', padding: '0 0.2em' },
  '.cm-lp-quote': { borderLeft: '3px solid var(--border)', paddingLeft: '0.8em', color: 'var(--muted)' },
  '.cm-lp-callout': {
    borderLeft: '3px solid var(--callout-color, var(--accent))',
    paddingLeft: '0.8em',
    background: 'var(--accent-soft)',
  },
  '.cm-lp-callout-title': { fontWeight: '700', color: 'var(--fg)' },
  '.cm-lp-callout-warning, .cm-lp-callout-caution, .cm-lp-callout-attention': {
    '--callout-color': 'var(--callout-warning)',
  },
  '.cm-lp-callout-danger, .cm-lp-callout-error, .cm-lp-callout-failure, .cm-lp-callout-bug': {
    '--callout-color': 'var(--callout-danger)',
  },
  '.cm-lp-callout-tip, .cm-lp-callout-success': { '--callout-color': 'var(--callout-tip)' },
  '.cm-lp-codeblock': { background: 'var(--code-bg)', fontFamily: 'ui-monospace, monospace' },
  '.cm-lp-hr': { borderBottom: '2px solid var(--border)' },
  '.cm-lp-math math': { fontSize: '1.1em' },
});
