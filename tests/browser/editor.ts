import type { BrowserContext, Page } from 'playwright-core';
import type { Profile } from '../../client-link/src/flow/profiles.ts';
import { linkWith } from './profile.ts';

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

/** Opens the workspace at `origin` with `profile` as its one profile, the note at `path` in its live editor. */
export async function openLiveEditor(
  context: BrowserContext,
  page: Page,
  profile: Profile,
  origin: string,
  path: string,
): Promise<void> {
  await linkWith(context, profile);
  await page.goto(`${origin}/workspace#note=${encodeURIComponent(path)}`);
  await page.getByTestId('live').click();
  await page.locator('[data-testid="live-editor"] .cm-content').waitFor();
}

/** Types `text` at the start or the end of the live editor, as a person would. */
export async function typeAt(page: Page, where: 'start' | 'end', text: string): Promise<void> {
  await page.locator('[data-testid="live-editor"] .cm-content').click();
  await page.keyboard.press(where === 'start' ? 'ControlOrMeta+Home' : 'ControlOrMeta+End');
  await page.keyboard.type(text, { delay: 5 });
}
