import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../core/notes/service.ts';

/** A small vault the agent tests share. */
export const VAULT: Record<string, string> = {
  'garden/plan.md':
    '---\ntags: [garden, project]\n---\n# Garden plan\n\nPlant tomatoes in May; compost the beds in April.\n\n## Beds\n\nThree raised beds by the fence. See [[Compost]].\n\n## Budget\n\nAbout 200 euros.\n',
  'garden/compost.md': '# Compost\n\nTurn the compost heap every two weeks. #garden\n',
  'work/standup.md': '# Standup\n\nDaily at nine. Links to [[plan]] for the team garden. #work\n',
  'inbox.md': '# Inbox\n\n- first idea\n',
};

/** A note service over an in-memory copy of `VAULT`, indexed. */
export async function vaultNotes(files: Record<string, string> = VAULT) {
  const clock = { now: () => Date.now() };
  const notes = createNoteService({
    store: memoryNoteStore({ files: { ...files } }),
    clock,
    state: memoryStateStore(),
  });
  await notes.load();
  return { notes, clock };
}
