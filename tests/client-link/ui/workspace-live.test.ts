import { describe, expect, it } from 'vitest';
import { type LiveEvent, parseFrames } from '../../../client-link/src/flow/live-feed.ts';
import { changeFor } from '../../../client-link/src/ui/workspace-live.ts';

const ev = (id: number, type: string, path: string, from?: string, checksum?: string): LiveEvent => ({
  id,
  type,
  data: { path, external: false, ...(from ? { from } : {}), ...(checksum ? { checksum } : {}) },
});

describe('parseFrames (the workspace reads the event stream with fetch)', () => {
  it('parses whole frames, skips comments, keeps a partial frame for the next chunk, handles CRLF', () => {
    const out: { id?: string; event?: string; data: string }[] = [];
    let rest = parseFrames(
      'retry: 2000\n\nid: 5\n: ready\n\n: heartbeat\n\nid: 6\nevent: note.updated\ndata: {"pa',
      out,
    );
    expect(out).toEqual([{ id: '5', data: '' }]);
    rest = parseFrames(`${rest}th":"a.md"}\r\n\r\nid: 7\nevent: reset\ndata: {}\n\n`, out);
    expect(rest).toBe('');
    expect(out.slice(1)).toEqual([
      { id: '6', event: 'note.updated', data: '{"path":"a.md"}' },
      { id: '7', event: 'reset', data: '{}' },
    ]);
  });
});

describe('changeFor (what the feed means for the open note)', () => {
  it('follows a move, sees a delete or a change of the open note, and ignores others', () => {
    expect(changeFor('a.md', [ev(1, 'note.updated', 'b.md')], false)).toEqual({ kind: 'none' });
    expect(changeFor('a.md', [ev(1, 'note.updated', 'a.md')], false)).toEqual({ kind: 'changed' });
    expect(changeFor('a.md', [ev(1, 'note.deleted', 'a.md')], false)).toEqual({ kind: 'deleted' });
    expect(
      changeFor('a.md', [ev(1, 'note.moved', 'x/a.md', 'a.md'), ev(2, 'note.updated', 'x/a.md')], false),
    ).toEqual({ kind: 'moved', to: 'x/a.md' });
    expect(changeFor('a.md', [], true)).toEqual({ kind: 'changed' });
    expect(changeFor(null, [ev(1, 'note.updated', 'a.md')], true)).toEqual({ kind: 'none' });
  });

  it("takes an update to the version shown (the workspace's own save, back through the feed) for no change", () => {
    const own = ev(1, 'note.updated', 'a.md', undefined, 'c1');
    expect(changeFor('a.md', [own], false, 'c1')).toEqual({ kind: 'none' });
    // Another version, or no version known: a change.
    expect(changeFor('a.md', [own], false, 'c0')).toEqual({ kind: 'changed' });
    expect(changeFor('a.md', [own], false, null)).toEqual({ kind: 'changed' });
    // The own save, then a change elsewhere: a change; missed events: a change all the same.
    expect(changeFor('a.md', [own, ev(2, 'note.updated', 'a.md', undefined, 'c2')], false, 'c1')).toEqual({
      kind: 'changed',
    });
    expect(changeFor('a.md', [own], true, 'c1')).toEqual({ kind: 'changed' });
    expect(changeFor('a.md', [ev(3, 'note.deleted', 'a.md', undefined, 'c1')], false, 'c1')).toEqual({
      kind: 'deleted',
    });
  });
});
