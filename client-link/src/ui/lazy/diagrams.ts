/**
 * Mermaid diagrams, loaded only when a note has a ```mermaid block. Mermaid sanitizes its SVG
 * (strict security level, no click handlers or HTML labels that run script); the SVG's own
 * `<style>` would be refused by the page's CSP, so its rules go into a constructed stylesheet.
 */
import mermaid from 'mermaid';

let theme: string | null = null;
let count = 0;

/** Replaces each mermaid code block by its diagram; a diagram that fails keeps the code with a note. */
export async function renderDiagrams(blocks: HTMLElement[], dark: boolean): Promise<void> {
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
    const source = pre.textContent ?? '';
    const id = `quire-mermaid-${++count}`;
    try {
      const { svg } = await mermaid.render(id, source);
      const box = document.createElement('figure');
      box.className = 'mermaid-diagram';
      box.dataset.testid = 'mermaid';
      box.innerHTML = svg;
      const style = box.querySelector('svg style');
      if (style) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(style.textContent ?? '');
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
        style.remove();
      }
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
