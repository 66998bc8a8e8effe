/** Syntax highlighting of fenced code (highlight.js, its common languages), loaded on demand. */
import hljs from 'highlight.js/lib/common';

/** Highlights each `code` element whose fence named a known language (`language-x` class). */
export function highlightCode(elements: HTMLElement[]): void {
  for (const el of elements) {
    const lang = /(?:^|\s)language-([\w+#-]+)/.exec(el.className)?.[1];
    if (!lang || !hljs.getLanguage(lang)) continue;
    // highlight.js escapes the code it wraps in spans; the note's text never becomes markup.
    const { value } = hljs.highlight(el.textContent ?? '', { language: lang, ignoreIllegals: true });
    el.innerHTML = value;
    el.classList.add('hljs');
    el.dataset.highlighted = lang;
  }
}
