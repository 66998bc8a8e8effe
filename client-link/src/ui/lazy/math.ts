/** KaTeX, loaded only when a note has math (a chunk of its own, fonts and CSS from this origin). */
import katex from 'katex';
import 'katex/dist/katex.min.css';

/** Renders each `.math` element's TeX in place; a TeX error shows the source with the message. */
export function renderMath(elements: HTMLElement[]): void {
  for (const el of elements) {
    const tex = el.textContent ?? '';
    el.dataset.tex = tex;
    try {
      katex.render(tex, el, {
        displayMode: el.classList.contains('math-display'),
        throwOnError: false,
        output: 'htmlAndMathml',
        trust: false,
        strict: 'ignore',
      });
    } catch {
      el.textContent = tex;
      el.classList.add('math-error');
    }
  }
}
