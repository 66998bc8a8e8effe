import type { Page } from 'playwright-core';

/** The note editor's text (CodeMirror, or the fallback textarea): its host's `value`. */
export const editorText = (page: Page): Promise<string> =>
  page.getByTestId('editor').evaluate((e) => (e as HTMLTextAreaElement).value);

/** Replaces the editor's text as a person would: select all, type (insert) the new text. */
export async function fillEditor(page: Page, text: string): Promise<void> {
  const content = page.locator('[data-testid="editor"] .cm-content, [data-testid="editor"] textarea').first();
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}
