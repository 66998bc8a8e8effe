import { describe, expect, it } from 'vitest';
import { attachmentFolder, parseAttachmentRule } from '../../../core/files/attachment-folder.ts';
import { contentTypeOf } from '../../../core/files/content-types.ts';
import { validateFilePath } from '../../../core/files/paths.ts';
import { parseRange } from '../../../core/files/range.ts';

describe('parseRange', () => {
  it('reads one range and refuses what cannot be met', () => {
    expect(parseRange(undefined, 10)).toBeNull();
    expect(parseRange('bytes=0-4', 10)).toEqual({ start: 0, end: 4 });
    expect(parseRange('bytes=5-', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRange('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRange('bytes=-30', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=8-100', 10)).toEqual({ start: 8, end: 9 });
    expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,3-4', 10)).toBeNull();
    expect(parseRange('items=0-1', 10)).toBeNull();
    expect(parseRange('bytes=5-2', 10)).toBeNull();
  });
});

describe('attachment folder rule', () => {
  const at = (json: string | null, note: string | null) => attachmentFolder(parseAttachmentRule(json), note);
  it('covers each form of attachmentFolderPath', () => {
    expect(at(null, 'a/n.md')).toBe('');
    expect(at('not json', 'a/n.md')).toBe('');
    expect(at('{"attachmentFolderPath":"/"}', 'a/n.md')).toBe('');
    expect(at('{"attachmentFolderPath":"Files/img"}', 'a/n.md')).toBe('Files/img');
    expect(at('{"attachmentFolderPath":"./"}', 'a/n.md')).toBe('a');
    expect(at('{"attachmentFolderPath":"./"}', 'n.md')).toBe('');
    expect(at('{"attachmentFolderPath":"./assets"}', 'a/b/n.md')).toBe('a/b/assets');
    expect(at('{"attachmentFolderPath":"./../../.."}', 'a/n.md')).toBe('');
  });
});

describe('file paths and types', () => {
  it('validates like a note path but refuses .md', () => {
    expect(validateFilePath('a/b.png')).toBe('a/b.png');
    for (const bad of ['', 'a/', '/a.png', '../a.png', '.obsidian/x.json', 'a\\b.png', 'n.MD', 7]) {
      expect(() => validateFilePath(bad), String(bad)).toThrow();
    }
  });
  it('types by extension only', () => {
    expect(contentTypeOf('x/Pasted image 2023.PNG')).toBe('image/png');
    expect(contentTypeOf('doc.pdf')).toBe('application/pdf');
    expect(contentTypeOf('a.mp3')).toBe('audio/mpeg');
    expect(contentTypeOf('noext')).toBe('application/octet-stream');
  });
});
