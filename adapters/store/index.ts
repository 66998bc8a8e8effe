export { fsNoteStore } from './fs-note-store.ts';
export { fsStateStore } from './fs-state-store.ts';
export { memoryNoteStore } from './memory-note-store.ts';
export { memoryStateStore } from './memory-state-store.ts';
