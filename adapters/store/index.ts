export { fsFileStore } from './fs-file-store.ts';
export { fsNoteStore } from './fs-note-store.ts';
export { fsStateStore } from './fs-state-store.ts';
export { type KvNamespaceLike, kvStateStore } from './kv-state-store.ts';
export { memoryFileStore } from './memory-file-store.ts';
export { memoryNoteStore } from './memory-note-store.ts';
export { memoryStateStore } from './memory-state-store.ts';
export { type R2BucketLike, r2NoteStore } from './r2-note-store.ts';
