/**
 * The heavy renderers, each a chunk of its own loaded (same origin) only when the note needs it:
 * KaTeX for math, Mermaid for diagrams, highlight.js for fenced code. A note without any of them
 * loads none.
 */
import { log } from './log.ts';

const isDark = () =>
  document.documentElement.dataset.theme === 'dark' ||
  (document.documentElement.dataset.theme !== 'light' && matchMedia('(prefers-color-scheme: dark)').matches);

/** Resolves after the next paint: a frame, then a task after it. */
const afterPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

/**
 * Renders math, diagrams and highlighted code under `root`; resolves when all are in. It starts
 * after the note's text is painted: with its chunk already loaded, highlighting a note of a
 * hundred code blocks in the same task would hold the first paint back (measured on the Obsidian
 * help vault: bench/note-open.ts).
 */
export async function renderRich(root: HTMLElement): Promise<void> {
  await afterPaint();
  const math = [...root.querySelectorAll<HTMLElement>('.math-inline,.math-display')];
  const diagrams = [...root.querySelectorAll<HTMLElement>('pre > code.language-mermaid')].map(
    (c) => c.parentElement!,
  );
  const code = [...root.querySelectorAll<HTMLElement>('pre > code[class*="language-"]')].filter(
    (c) => !c.classList.contains('language-mermaid'),
  );
  const jobs: Promise<void>[] = [];
  if (math.length) jobs.push(import('./lazy/math.ts').then((m) => m.renderMath(math)));
  if (diagrams.length)
    jobs.push(import('./lazy/diagrams.ts').then((m) => m.renderDiagrams(diagrams, isDark())));
  if (code.length) jobs.push(import('./lazy/highlight.ts').then((m) => m.highlightCode(code)));
  const results = await Promise.allSettled(jobs);
  for (const r of results)
    if (r.status === 'rejected') log.warn('rendering: a renderer failed:', String(r.reason));
}
