/**
 * The note editor: CodeMirror 6 with markdown highlighting, `[[` completion and paste/drop
 * uploads. Loaded only when a note is edited (a chunk of its own).
 */
import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
  closeBrackets,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, keymap, placeholder } from '@codemirror/view';
import type { EditorHandle, EditorOptions, LinkCandidate } from '../editor-types.ts';

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

/** Mounts CodeMirror in `host` with `doc`; the handle reads and writes its text. */
export function createEditor(host: HTMLElement, doc: string, opts: EditorOptions): EditorHandle {
  const view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc,
      extensions: [
        history(),
        drawSelection(),
        closeBrackets(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        markdown(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
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
  return {
    kind: 'codemirror',
    value: () => view.state.doc.toString(),
    insert(text) {
      const { from, to } = view.state.selection.main;
      view.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}
