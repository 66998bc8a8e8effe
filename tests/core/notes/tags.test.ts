import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { filterByTag } from '../../../client-link/src/ui/workspace-live.ts';
import { noteTools } from '../../../core/agent/tools.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import { countTags, tagMatches } from '../../../core/notes/tags.ts';

describe('nested tags', () => {
  it('a filter on a tag also matches the tags nested under it, case-insensitively, never a mere prefix', () => {
    expect(tagMatches('project', 'project')).toBe(true);
    expect(tagMatches('project/alpha', 'project')).toBe(true);
    expect(tagMatches('Project/Alpha/x', '#project/alpha')).toBe(true);
    expect(tagMatches('project/alpha', 'project/alpha/')).toBe(true);
    expect(tagMatches('projects', 'project')).toBe(false);
    expect(tagMatches('project', 'project/alpha')).toBe(false);
    expect(tagMatches('area/project', 'project')).toBe(false);
    expect(tagMatches('project', '')).toBe(false);
  });

  it('the workspace filters its note list by the same rule, and tag counts keep each tag whole', () => {
    const note = (path: string, tags: string[]) => ({ path, tags }) as never;
    const notes = [note('a.md', ['project/alpha']), note('b.md', ['project']), note('c.md', ['projects'])];
    expect(filterByTag(notes, 'project').map((n: { path: string }) => n.path)).toEqual(['a.md', 'b.md']);
    expect(filterByTag(notes, 'Project/alpha').map((n: { path: string }) => n.path)).toEqual(['a.md']);
    expect(countTags([{ tags: ['project/alpha'] }, { tags: ['project'] }])).toEqual([
      { tag: 'project', count: 1 },
      { tag: 'project/alpha', count: 1 },
    ]);
  });
});

describe("the agent's search_notes tool with a tag", () => {
  it('finds the notes tagged with the tag or a tag nested under it', async () => {
    const notes = createNoteService({
      store: memoryNoteStore({
        files: {
          'a.md': 'Alpha #project/alpha',
          'b.md': 'Bare #project',
          'c.md': 'Other #projects',
          'd.md': '%% #project hidden %% none',
        },
      }),
      clock: { now: () => 0 },
    });
    await notes.load();
    const tool = noteTools(notes).find((t) => t.name === 'search_notes')!;
    const run = async (tag: string) =>
      ((await tool.run({ tag } as never, {} as never)).output as { results: { path: string }[] }).results
        .map((r) => r.path)
        .sort();
    expect(await run('project')).toEqual(['a.md', 'b.md']);
    expect(await run('#project/alpha')).toEqual(['a.md']);
  });
});
