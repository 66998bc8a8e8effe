/**
 * A small deterministic vault for the index snapshot's tests and committed fixtures
 * (tests/fixtures/index-cache/, remade by `npx tsx tests/fixtures/index-cache/make.ts`).
 */
import { memoryFileStore } from '../../../adapters/store/memory-file-store.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import type { StateStore } from '../../../core/ports.ts';

export const clock = { now: () => Date.parse('2025-01-01T00:00:00Z') };

/** Notes with links (wiki, markdown, to files, dangling), tags, frontmatter, headings, aliases. */
export function fixtureNotes(n = 40): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const folder = i % 3 === 0 ? '' : `area ${i % 4}/${i % 2 ? 'sub/' : ''}`;
    files[`${folder}note ${i}.md`] =
      `---\ntags: [t${i % 5}, shared/x${i % 2}]\naliases: [alias ${i}]\n${i % 6 === 0 ? `created: 2024-03-0${(i % 9) + 1}\n` : ''}---\n` +
      `# Note ${i} über\n\nWords w${i} comet${i % 7} [[note ${(i + 1) % n}]] [[note ${(i * 7) % n}|seven]] ` +
      `[x](../note ${i % 9}.md) ![[pic ${i % 3}.png]] [[missing ${i % 4}]] #inline${i % 3}\n\n## Part\n\nnebula ${i % 11} ✓\n`;
  }
  return files;
}

export const fixtureFiles = (): Record<string, string> => ({
  'img/pic 0.png': 'png0',
  'img/pic 1.png': 'png1',
  'pic 2.png': 'png2',
  'docs/report.pdf': 'pdf',
});

export function fixtureStores(notes = fixtureNotes(), attachments = fixtureFiles()) {
  return {
    store: memoryNoteStore({ clock, files: notes }),
    files: memoryFileStore({ clock, files: attachments }),
  };
}

/** A memory state store without byte ranges: the JSON layout, as on Workers KV. */
export function jsonOnlyStateStore(): StateStore {
  const { putBytes: _a, getRange: _b, byteSize: _c, ...rest } = memoryStateStore();
  return rest;
}
