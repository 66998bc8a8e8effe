/**
 * The note editor: CodeMirror 6 with markdown highlighting, live preview (live-preview.ts), `[[`
 * completion, shortcuts for the common edits and paste/drop uploads. Loaded only when a note is
 * edited (a chunk of its own).
 *
 * The page's policy (`style-src 'self'`) refuses the `<style>` element CodeMirror writes into a
 * document's head; inside a shadow root CodeMirror (style-mod) uses constructed style sheets
 * instead, which no policy governs. So the editor lives in a shadow root of its host, and every
 * rule it needs is an `EditorView.theme` (colours from the page's variables, which inherit).
 */
import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
  closeBrackets,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { markdown, markdownKeymap, markdownLanguage } from '@codemirror/lang-markdown';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorSelection, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, keymap, placeholder } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next';
import { UndoManager } from 'yjs';
import type { EditorHandle, EditorOptions, LinkCandidate } from '../editor-types.ts';
import { livePreview, livePreviewTheme } from './live-preview.ts';

/** Inserts `target]]` over the typed part and any `]` already there; the cursor ends after `]]`. */
const applyLink = (target: string) => (view: EditorView, _c: Completion, from: number, to: number) => {
  const after = view.state.sliceDoc(to, to + 2);
  const skip = after.startsWith(']]') ? 2 : after.startsWith(']') ? 1 : 0;
  const text = `${target}]]`;
  view.dispatch({
    changes: { from, to: to + skip, insert: text },
    selection: { anchor: from + text.length },
  });
};

/** `[[` completion: note titles, aliases and file names; after `#`, the headings of that note. */
function wikiCompletion(opts: EditorOptions) {
  let candidates: Promise<LinkCandidate[]> | null = null;
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const m = ctx.matchBefore(/\[\[[^\]|\n]*$/);
    if (!m) return null;
    const inner = m.text.slice(2);
    const from = m.from + 2;
    const hash = inner.indexOf('#');
    candidates ??= opts.candidates();
    const all = await candidates;
    if (hash >= 0) {
      const target = inner.slice(0, hash);
      const headings = await opts.headings(target);
      return {
        from: from + hash + 1,
        options: headings.map((h) => ({ label: h, type: 'text', apply: applyLink(h) })),
        validFor: /^[^\]|\n#]*$/,
      };
    }
    return {
      from,
      options: all.map((c) => ({
        label: c.label,
        detail: c.detail,
        type: c.kind === 'file' ? 'variable' : 'class',
        apply: applyLink(c.insert),
      })),
      validFor: /^[^\]|\n#]*$/,
    };
  };
}

/** Markdown highlighting in the page's colours (variables: light and dark alike). */
const markdownStyle = HighlightStyle.define([
  { tag: t.heading, fontWeight: '700', color: 'var(--fg)' },
  { tag: t.strong, fontWeight: '700' },
  { tag: t.emphasis, fontStyle: 'italic' },
  { tag: t.strikethrough, textDecoration: 'line-through' },
  { tag: [t.link, t.url], color: 'var(--accent)' },
  { tag: t.monospace, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  { tag: [t.processingInstruction, t.meta, t.contentSeparator], color: 'var(--muted)' },
  { tag: t.quote, color: 'var(--muted)' },
  { tag: [t.keyword, t.atom, t.bool], color: 'var(--accent)' },
  { tag: t.comment, color: 'var(--muted)', fontStyle: 'italic' },
]);

/** The editor's box, text and completion list, in the page's colours. */
const baseTheme = EditorView.theme({
  '&': {
    color: 'var(--fg)',
    backgroundColor: 'var(--bg)',
    minHeight: '16rem',
    maxHeight: '70vh',
    fontSize: '1rem',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-scroller': {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", sans-serif',
    lineHeight: '1.6',
    overflow: 'auto',
  },
  '.cm-content': { caretColor: 'var(--fg)', padding: '0.75rem 0' },
  '.cm-line': { padding: '0 0.9rem' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': {
    backgroundColor: 'var(--accent-soft)',
  },
  '.cm-placeholder': { color: 'var(--muted)' },
  '.cm-tooltip': {
    backgroundColor: 'var(--surface)',
    color: 'var(--fg)',
    border: '1px solid var(--border)',
    borderRadius: '6px',
    boxShadow: '0 4px 14px rgb(0 0 0 / 0.18)',
  },
  '.cm-tooltip-autocomplete > ul > li': { padding: '0.25rem 0.6rem', lineHeight: '1.4' },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': {
    backgroundColor: 'var(--accent)',
    color: 'var(--on-accent)',
  },
  '.cm-completionDetail': { color: 'inherit', opacity: '0.85', marginLeft: '0.6em' },
});

/** The toolbar above the text (phones have no shortcuts), in a constructed sheet of the shadow root. */
const TOOLBAR_CSS = `
:host { display: block; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.25rem; padding: 0.3rem; border-bottom: 1px solid var(--border); background: var(--surface); }
.toolbar button { font: inherit; font-size: 0.85rem; min-height: 2rem; min-width: 2rem; padding: 0.15rem 0.55rem; border: 1px solid var(--border); border-radius: 4px; background: var(--bg); color: var(--fg); cursor: pointer; }
.toolbar button[aria-pressed="true"] { background: var(--accent); color: var(--on-accent); border-color: var(--accent); }
.toolbar button:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
`;

/** Wraps the selection in `mark` (or unwraps it when already wrapped); an empty one gets the pair. */
const wrap =
  (mark: string) =>
  (view: EditorView): boolean => {
    view.dispatch(
      view.state.changeByRange((r) => {
        const before = view.state.sliceDoc(r.from - mark.length, r.from);
        const after = view.state.sliceDoc(r.to, r.to + mark.length);
        if (before === mark && after === mark) {
          return {
            changes: [
              { from: r.from - mark.length, to: r.from },
              { from: r.to, to: r.to + mark.length },
            ],
            range: EditorSelection.range(r.from - mark.length, r.to - mark.length),
          };
        }
        return {
          changes: [
            { from: r.from, insert: mark },
            { from: r.to, insert: mark },
          ],
          range: EditorSelection.range(r.from + mark.length, r.to + mark.length),
        };
      }),
    );
    view.focus();
    return true;
  };

/** `[selection](url)`, the cursor on `url`; an empty selection gives `[[` (a wiki-link, completed). */
const link = (view: EditorView): boolean => {
  const r = view.state.selection.main;
  if (r.empty) {
    view.dispatch({ changes: { from: r.from, insert: '[[]]' }, selection: { anchor: r.from + 2 } });
  } else {
    const text = `[${view.state.sliceDoc(r.from, r.to)}](url)`;
    view.dispatch({
      changes: { from: r.from, to: r.to, insert: text },
      selection: EditorSelection.range(r.from + text.length - 4, r.from + text.length - 1),
    });
  }
  view.focus();
  return true;
};

/** Turns the cursor's line into a task (`- [ ] `), or toggles the box of a task line. */
const task = (view: EditorView): boolean => {
  const l = view.state.doc.lineAt(view.state.selection.main.head);
  const m = /^(\s*[-*+] \[)([ xX])\]/.exec(l.text);
  if (m) {
    const at = l.from + m[1]!.length;
    view.dispatch({ changes: { from: at, to: at + 1, insert: m[2] === ' ' ? 'x' : ' ' } });
  } else {
    const bullet = /^(\s*)[-*+] /.exec(l.text);
    const from = l.from + (bullet ? bullet[0].length : /^\s*/.exec(l.text)![0].length);
    const insert = bullet ? '[ ] ' : '- [ ] ';
    view.dispatch({ changes: { from, insert }, selection: { anchor: l.to + insert.length } });
  }
  view.focus();
  return true;
};

/** Cycles the cursor's line through heading levels 1 to 3 and back to text. */
const heading = (view: EditorView): boolean => {
  const l = view.state.doc.lineAt(view.state.selection.main.head);
  const m = /^(#{1,6}) /.exec(l.text);
  const level = m ? m[1]!.length : 0;
  const next = level >= 3 ? '' : `${'#'.repeat(level + 1)} `;
  view.dispatch({ changes: { from: l.from, to: l.from + (m ? m[0].length : 0), insert: next } });
  view.focus();
  return true;
};

let caretStylesRouted = false;
/**
 * y-codemirror.next draws a remote caret with a `style` attribute (lib0's `setAttribute`), which
 * the page's `style-src 'self'` refuses: the caret would lose its colour and log a violation. Its
 * one attribute is routed to the CSSOM instead (what a script may always do), for that element
 * only, the way decision 0024 routes Mermaid's.
 */
function routeCaretStyles(): void {
  if (caretStylesRouted) return;
  caretStylesRouted = true;
  const set = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (this: Element, name: string, value: string) {
    if (name === 'style' && this instanceof HTMLElement && this.classList.contains('cm-ySelectionCaret')) {
      this.style.cssText = value;
      return;
    }
    set.call(this, name, value);
  };
}

/** Mounts CodeMirror in a shadow root of `host` with `doc`; the handle reads and writes its text. */
export function createEditor(host: HTMLElement, doc: string, opts: EditorOptions): EditorHandle {
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(TOOLBAR_CSS);
  shadow.adoptedStyleSheets = [sheet];
  const preview = new Compartment();
  let live = true;
  const toolbar = document.createElement('div');
  toolbar.className = 'toolbar';
  toolbar.setAttribute('role', 'toolbar');
  toolbar.setAttribute('aria-label', 'Formatting');
  const parent = document.createElement('div');
  shadow.append(toolbar, parent);

  const toggleSource = (view: EditorView): boolean => {
    live = !live;
    view.dispatch({ effects: preview.reconfigure(live ? [livePreview, livePreviewTheme] : []) });
    sourceButton.setAttribute('aria-pressed', String(!live));
    return true;
  };
  const save = (): boolean => {
    opts.save?.();
    return true;
  };
  // A live document brings its own undo (only this editor's typing) and the others' cursors.
  const shared = opts.live;
  const readOnly = new Compartment();
  const lock = (on: boolean) => [EditorState.readOnly.of(on), EditorView.editable.of(!on)];
  if (shared) routeCaretStyles();
  const collab = shared
    ? [
        yCollab(shared.text, shared.awareness, { undoManager: new UndoManager(shared.text) }),
        readOnly.of(lock(shared.readOnly)),
      ]
    : [history()];

  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: shared ? shared.text.toString() : doc,
      extensions: [
        collab,
        drawSelection(),
        closeBrackets(),
        keymap.of([
          { key: 'Mod-b', run: wrap('**') },
          { key: 'Mod-i', run: wrap('*') },
          { key: 'Mod-k', run: link },
          { key: 'Mod-Enter', run: task },
          { key: 'Mod-h', run: heading },
          { key: 'Mod-e', run: toggleSource },
          { key: 'Mod-s', run: save, preventDefault: true },
          ...markdownKeymap,
          ...defaultKeymap,
          ...(shared ? yUndoManagerKeymap : historyKeymap),
          indentWithTab,
        ]),
        markdown({ base: markdownLanguage }),
        syntaxHighlighting(markdownStyle),
        baseTheme,
        preview.of([livePreview, livePreviewTheme]),
        EditorView.lineWrapping,
        placeholder('Write in markdown…'),
        autocompletion({ override: [wikiCompletion(opts)], activateOnTyping: true }),
        EditorView.contentAttributes.of({ 'aria-label': opts.label }),
        EditorView.domEventHandlers({
          paste(e) {
            const files = [...(e.clipboardData?.files ?? [])];
            if (!files.length) return false;
            e.preventDefault();
            opts.onFiles(files, true);
            return true;
          },
          drop(e) {
            const files = [...(e.dataTransfer?.files ?? [])];
            if (!files.length) return false;
            e.preventDefault();
            opts.onFiles(files, false);
            return true;
          },
        }),
      ],
    }),
  });

  const button = (label: string, title: string, run: (v: EditorView) => boolean, testid: string) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.title = title;
    b.dataset.testid = testid;
    b.addEventListener('mousedown', (e) => e.preventDefault());
    b.addEventListener('click', () => run(view));
    toolbar.append(b);
    return b;
  };
  button('B', 'Bold (Ctrl+B)', wrap('**'), 'fmt-bold').setAttribute('aria-label', 'Bold');
  button('I', 'Italic (Ctrl+I)', wrap('*'), 'fmt-italic').setAttribute('aria-label', 'Italic');
  button('H', 'Heading (Ctrl+H)', heading, 'fmt-heading').setAttribute('aria-label', 'Heading');
  button('Link', 'Link (Ctrl+K)', link, 'fmt-link');
  button('Task', 'Task (Ctrl+Enter)', task, 'fmt-task');
  const sourceButton = button('Source', 'Show the markdown source (Ctrl+E)', toggleSource, 'fmt-source');
  sourceButton.setAttribute('aria-pressed', 'false');

  return {
    kind: 'codemirror',
    value: () => view.state.doc.toString(),
    insert(text) {
      const { from, to } = view.state.selection.main;
      view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
    },
    focus: () => view.focus(),
    setReadOnly: (on) => view.dispatch({ effects: readOnly.reconfigure(lock(on)) }),
    destroy: () => view.destroy(),
  };
}
