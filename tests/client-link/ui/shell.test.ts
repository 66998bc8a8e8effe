import { describe, expect, it } from 'vitest';
import { aliasesOf, offlineStore, RECENT_NOTES } from '../../../client-link/src/flow/offline-store.ts';
import type { FolderNode, Note } from '../../../client-link/src/flow/workspace-api.ts';
import { rankMatches } from '../../../client-link/src/ui/switcher.ts';
import { countTree, orderChildren } from '../../../client-link/src/ui/tree-view.ts';

/** A Storage over a Map that refuses writes past `quota` characters (as a full localStorage does). */
function memoryStorage(quota = Number.POSITIVE_INFINITY): Storage {
  const m = new Map<string, string>();
  const used = () => [...m.values()].reduce((a, v) => a + v.length, 0);
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => {
      if (used() - (m.get(k)?.length ?? 0) + v.length > quota)
        throw new DOMException('full', 'QuotaExceededError');
      m.set(k, v);
    },
  };
}

const note = (path: string, content = 'text', frontmatter: Record<string, unknown> = {}): Note =>
  ({
    path,
    title: path,
    content,
    frontmatter,
    checksum: `c-${path}`,
    tags: [],
    links: [],
    backlinks: [],
  }) as unknown as Note;

const tree: FolderNode = {
  name: '',
  path: '',
  type: 'folder',
  noteCount: 3,
  children: [
    {
      name: 'Attachments',
      path: 'Attachments',
      type: 'folder',
      noteCount: 0,
      children: [
        { name: 'a.png', path: 'Attachments/a.png', type: 'file', size: 1, contentType: 'image/png' },
        {
          name: 'Sub',
          path: 'Attachments/Sub',
          type: 'folder',
          noteCount: 0,
          children: [
            { name: 'b.png', path: 'Attachments/Sub/b.png', type: 'file', size: 1, contentType: 'image/png' },
          ],
        },
      ],
    },
    {
      name: 'Projects',
      path: 'Projects',
      type: 'folder',
      noteCount: 2,
      children: [
        { name: 'A.md', path: 'Projects/A.md', type: 'note', title: 'A' },
        { name: 'x.pdf', path: 'Projects/x.pdf', type: 'file', size: 1, contentType: 'application/pdf' },
        {
          name: 'Deep',
          path: 'Projects/Deep',
          type: 'folder',
          noteCount: 1,
          children: [{ name: 'B.md', path: 'Projects/Deep/B.md', type: 'note', title: 'B' }],
        },
      ],
    },
    { name: 'Home.md', path: 'Home.md', type: 'note', title: 'Home' },
    { name: 'top.png', path: 'top.png', type: 'file', size: 1, contentType: 'image/png' },
  ],
} as FolderNode;

describe('the tree: counts and order', () => {
  it('counts notes and files to the bottom of each folder', () => {
    const c = countTree(tree);
    expect(c.get('Attachments')).toEqual({ notes: 0, files: 2 });
    expect(c.get('Projects')).toEqual({ notes: 2, files: 1 });
    expect(c.get('')).toEqual({ notes: 3, files: 4 });
  });
  it('puts folders, then notes, then the attachments folder, then files', () => {
    const c = countTree(tree);
    expect(orderChildren(tree.children, c, null).map((x) => x.path)).toEqual([
      'Projects',
      'Home.md',
      'Attachments',
      'top.png',
    ]);
    // attachmentFolderPath names a folder that also holds notes: it still goes last.
    expect(orderChildren(tree.children, c, 'Projects').map((x) => x.path)).toEqual([
      'Home.md',
      'Attachments',
      'Projects',
      'top.png',
    ]);
  });
});

describe('the quick switcher ranking', () => {
  const items = [
    { path: 'b/Alphabet.md', title: 'Alphabet', aliases: [] },
    { path: 'a/Beta.md', title: 'Beta', aliases: ['alpha release'] },
    { path: 'c/Gamma.md', title: 'Gamma', aliases: [] },
    { path: 'alpha/Delta.md', title: 'Delta', aliases: [] },
    { path: 'd/The alpha.md', title: 'The alpha', aliases: [] },
  ];
  it('ranks title prefix, title, alias, path; case-insensitive; no match, nothing', () => {
    expect(rankMatches(items, 'ALPHA').map((i) => i.title)).toEqual([
      'Alphabet',
      'The alpha',
      'Beta',
      'Delta',
    ]);
    expect(rankMatches(items, 'zzz')).toEqual([]);
    expect(rankMatches(items, '  ')).toHaveLength(5);
  });
});

describe('the offline store', () => {
  it('keeps the most recent notes, newest first, and their aliases', () => {
    const st = offlineStore(memoryStorage(), 'p1');
    for (let i = 0; i < RECENT_NOTES + 5; i++) st.keepNote(note(`n${i}.md`));
    expect(st.note('n0.md')).toBeNull();
    expect(st.note(`n${RECENT_NOTES + 4}.md`)?.note.path).toBe(`n${RECENT_NOTES + 4}.md`);
    st.keepNote(note('al.md', 'x', { aliases: ['One', 2, 'Two'] }));
    expect(st.aliases().get('al.md')).toEqual(['One', 'Two']);
    expect(aliasesOf({ alias: 'Solo' })).toEqual(['Solo']);
    // Another profile keeps its own.
    expect(offlineStore(memoryStorage(), 'p2').note('al.md')).toBeNull();
  });
  it('drops the oldest copies when storage is full, never throws', () => {
    const st = offlineStore(memoryStorage(5_000), 'p1');
    for (let i = 0; i < 10; i++) st.keepNote(note(`n${i}.md`, 'x'.repeat(1_000)));
    expect(st.note('n9.md')).not.toBeNull();
    expect(st.note('n0.md')).toBeNull();
  });
  it('keeps drafts until dropped, and says when storage refuses one', () => {
    const st = offlineStore(memoryStorage(), 'p1');
    expect(st.saveDraft({ path: 'a.md', text: 'typed', baseChecksum: 'c1' })).toBe(true);
    expect(st.draft('a.md')).toMatchObject({ text: 'typed', baseChecksum: 'c1' });
    expect(st.drafts()).toHaveLength(1);
    st.dropDraft('a.md');
    expect(st.draft('a.md')).toBeNull();
    const full = offlineStore(memoryStorage(10), 'p1');
    expect(full.saveDraft({ path: 'a.md', text: 'much too long for it', baseChecksum: 'c1' })).toBe(false);
  });
  it('a draft takes room from the notes kept for reading, oldest first, its own note last', () => {
    const st = offlineStore(memoryStorage(6_000), 'p1');
    for (let i = 0; i < 4; i++) st.keepNote(note(`n${i}.md`, 'x'.repeat(1_000)));
    // Several drafts, one a note created offline (no base).
    expect(st.saveDraft({ path: 'n0.md', text: 'y'.repeat(1_500), baseChecksum: 'c0' })).toBe(true);
    // n0 is the oldest kept, but the draft's own: n1 went first.
    expect(st.note('n1.md')).toBeNull();
    expect(st.note('n0.md')).not.toBeNull();
    expect(st.note('n3.md')).not.toBeNull();
    expect(st.saveDraft({ path: 'new.md', text: 'z'.repeat(1_500), baseChecksum: null })).toBe(true);
    expect(
      st
        .drafts()
        .map((d) => d.path)
        .sort(),
    ).toEqual(['n0.md', 'new.md']);
    expect(st.note('n3.md')).not.toBeNull();
  });
});
