/** The in-memory stores, the `@quire-notes/core/memory` entry: a vault, state and files held in memory. */
export { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
export { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
export { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
