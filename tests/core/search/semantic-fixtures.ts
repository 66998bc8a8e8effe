import { openAiEmbeddings } from '../../../adapters/embeddings/openai-compatible.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { StateStore } from '../../../core/ports.ts';
import { createRetrieval } from '../../../core/search/retrieval.ts';
import { createSemanticIndex } from '../../../core/search/semantic/semantic-index.ts';

/** A small help vault in the style of Obsidian's: the example lives here. */
export const HELP_VAULT: Record<string, string> = {
  'Editing and formatting/Callouts.md':
    '# Callouts\n\nUse callouts to include additional content without breaking the flow of your notes.\n\n## Supported types\n\nnote, abstract, info, todo, tip, success, question, warning, failure, danger, bug, example, quote.\n\n## Foldable callouts\n\nAdd a plus or minus sign after the type to make a callout foldable.\n',
  'Linking notes and files/Embed files.md':
    '# Embed files\n\nYou can embed files in your vault into a note with an exclamation mark before a link.\n\n## Embed an image in a note\n\nUse ![[Engelbart.jpg]] to show an image; add |100 for its width.\n\n## Embed a PDF in a note\n\nTo embed a PDF document, use ![[Document.pdf]]. Open the PDF at a page with #page=3 and set its height.\n\n## Embed audio\n\nAudio files play inline: ![[Recording.mp3]].\n',
  'Plugins/Outline.md':
    '# Outline\n\nThe Outline plugin lists the headings in the current note, so you can jump between sections.\n',
  'Plugins/Canvas.md':
    '# Canvas\n\nCanvas is a visual space to lay out notes, media and web pages side by side and connect them with lines.\n',
  'Getting started/Sync your notes.md':
    '# Sync your notes\n\nKeep your vault on several devices: sync services copy the files. See [[Embed files]] for attachments.\n',
};

/** Notes, a semantic index over the fake server at `url`, and the retrieval over both. */
export async function semanticVault(
  url: string,
  opts: { state?: StateStore; files?: Record<string, string> } = {},
) {
  const clock = { now: () => Date.now() };
  const state = opts.state ?? memoryStateStore();
  const notes = createNoteService({
    store: memoryNoteStore({ files: { ...(opts.files ?? HELP_VAULT) } }),
    clock,
    state: memoryStateStore(),
  });
  await notes.load();
  const embeddings = openAiEmbeddings({ url, model: 'fake-bow' });
  const semantic = createSemanticIndex({ notes, embeddings, state, batchSize: 4, retryMs: 60_000 });
  const retrieval = createRetrieval({ notes, semantic });
  return { notes, semantic, retrieval, state, embeddings };
}
