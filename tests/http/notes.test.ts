import { describe, expect, it } from 'vitest';
import { memoryApp } from '../helpers/app.ts';

const enc = encodeURIComponent;

describe('notes API', () => {
  it('creates a note (201) and serves every field of the note', async () => {
    const { call } = await memoryApp({ 'people/ada.md': '# Ada\n' });
    const content =
      '---\ntitle: Plan\ntags: work, q3\ncreated: 2024-01-02\n---\n# Heading\nMeet [[ada]] about #budget.\n';
    const created = await call('POST', '/api/v1/notes', { path: 'projects/2024/plan.md', content });
    expect(created.status).toBe(201);
    expect(created.json.success).toBe(true);
    expect(created.headers.get('etag')).toBe(`"${created.json.data.checksum}"`);

    const res = await call('GET', `/api/v1/notes/${enc('projects/2024/plan.md')}`);
    expect(res.status).toBe(200);
    const n = res.json.data;
    expect(n.path).toBe('projects/2024/plan.md');
    expect(n.title).toBe('Plan');
    expect(n.tags).toEqual(['work', 'q3', 'budget']);
    expect(n.links).toEqual([{ target: 'ada', path: 'people/ada.md', kind: 'wikilink', type: 'note' }]);
    expect(n.backlinks).toEqual([]);
    expect(n.wordCount).toBe(5);
    expect(n.createdAt).toBe('2024-01-02T00:00:00.000Z');
    expect(n.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(n.checksum).toMatch(/^[0-9a-f]{64}$/);
    const { createHash } = await import('node:crypto');
    expect(n.checksum).toBe(createHash('sha256').update(content).digest('hex'));
    expect(n.content).toBe('# Heading\nMeet [[ada]] about #budget.\n');
    expect(n.frontmatter).toEqual({ title: 'Plan', tags: 'work, q3', created: '2024-01-02' });

    const ada = await call('GET', `/api/v1/notes/${enc('people/ada.md')}`);
    expect(ada.json.data.backlinks).toEqual([{ path: 'projects/2024/plan.md', title: 'Plan' }]);
  });

  it('lists note summaries without content', async () => {
    const { call } = await memoryApp({ 'a.md': 'alpha [[b]]', 'b.md': '# Bee' });
    const res = await call('GET', '/api/v1/notes');
    expect(res.status).toBe(200);
    expect(res.json.data.map((n: any) => n.path)).toEqual(['a.md', 'b.md']);
    const a = res.json.data[0];
    expect(Object.keys(a).sort()).toEqual(
      [
        'backlinks',
        'checksum',
        'createdAt',
        'links',
        'path',
        'tags',
        'title',
        'updatedAt',
        'wordCount',
      ].sort(),
    );
    expect(a.title).toBe('a');
    expect(res.json.data[1].backlinks).toEqual([{ path: 'a.md', title: 'a' }]);
  });

  it('answers 304 to If-None-Match on the list and on a note, and a new ETag after a change', async () => {
    const { call } = await memoryApp({ 'a.md': 'x' });
    const list = await call('GET', '/api/v1/notes');
    const etag = list.headers.get('etag')!;
    expect((await call('GET', '/api/v1/notes', undefined, { 'if-none-match': etag })).status).toBe(304);
    const note = await call('GET', '/api/v1/notes/a.md');
    const noteTag = note.headers.get('etag')!;
    expect((await call('GET', '/api/v1/notes/a.md', undefined, { 'if-none-match': noteTag })).status).toBe(
      304,
    );
    await call('PUT', '/api/v1/notes/a.md', { content: 'y' });
    const after = await call('GET', '/api/v1/notes', undefined, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
  });

  it('refuses to create over an existing note with 409', async () => {
    const { call } = await memoryApp({ 'a.md': 'original' });
    const res = await call('POST', '/api/v1/notes', { path: 'a.md', content: 'new' });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('NOTE_ALREADY_EXISTS');
    expect((await call('GET', '/api/v1/notes/a.md')).json.data.content).toBe('original');
  });

  it('PUT without frontmatter keeps the existing block byte for byte', async () => {
    const block = '---\n# a comment\ntitle:   "Spaced"   \nlist: [1,2]\n---\n';
    const { call, notes } = await memoryApp({ 'n.md': `${block}old body\n` });
    const res = await call('PUT', '/api/v1/notes/n.md', { content: 'new body\n' });
    expect(res.status).toBe(200);
    expect(res.json.data.content).toBe('new body\n');
    expect(res.json.data.title).toBe('Spaced');
    const raw = await notes.get('n.md');
    expect(raw.frontmatter).toEqual({ title: 'Spaced', list: [1, 2] });
    const { createHash } = await import('node:crypto');
    expect(raw.checksum).toBe(createHash('sha256').update(`${block}new body\n`).digest('hex'));
  });

  it('PUT with frontmatter replaces it; content with its own block replaces the whole file', async () => {
    const { call } = await memoryApp({ 'n.md': '---\na: 1\n---\nbody' });
    const r1 = await call('PUT', '/api/v1/notes/n.md', { content: 'b2', frontmatter: { b: 2 } });
    expect(r1.json.data.frontmatter).toEqual({ b: 2 });
    const r2 = await call('PUT', '/api/v1/notes/n.md', { content: '---\nc: 3\n---\nb3' });
    expect(r2.json.data.frontmatter).toEqual({ c: 3 });
    expect(r2.json.data.content).toBe('b3');
    const r3 = await call('PUT', '/api/v1/notes/n.md', {
      content: '---\nc: 3\n---\nb3',
      frontmatter: { d: 1 },
    });
    expect(r3.status).toBe(400);
  });

  it('If-Match: a mismatch is 412 on PUT, DELETE and move; a match goes through', async () => {
    const { call } = await memoryApp({ 'n.md': 'v1' });
    const cur = (await call('GET', '/api/v1/notes/n.md')).json.data.checksum;
    const stale = { 'if-match': '"0000"' };
    expect((await call('PUT', '/api/v1/notes/n.md', { content: 'v2' }, stale)).status).toBe(412);
    expect((await call('DELETE', '/api/v1/notes/n.md', undefined, stale)).status).toBe(412);
    expect((await call('POST', '/api/v1/notes/n.md/move', { path: 'm.md' }, stale)).status).toBe(412);
    const okRes = await call('PUT', '/api/v1/notes/n.md', { content: 'v2' }, { 'if-match': `"${cur}"` });
    expect(okRes.status).toBe(200);
    expect(
      (await call('PUT', '/api/v1/notes/n.md', { content: 'v3' }, { 'if-match': `"${cur}"` })).status,
    ).toBe(412);
  });

  it('deletes (into the trash) and updates backlinks', async () => {
    const { call } = await memoryApp({ 'a.md': '[[b]]', 'b.md': 'bee' });
    const del = await call('DELETE', '/api/v1/notes/b.md');
    expect(del.status).toBe(200);
    expect(del.json.data).toMatchObject({ deleted: 'b.md' });
    expect((await call('GET', '/api/v1/notes/b.md')).status).toBe(404);
    const a = (await call('GET', '/api/v1/notes/a.md')).json.data;
    expect(a.links).toEqual([{ target: 'b', path: null, kind: 'wikilink', type: 'note' }]);
    expect((await call('DELETE', '/api/v1/notes/b.md')).json.error.code).toBe('NOTE_NOT_FOUND');
  });

  it('keeps links and backlinks true across create, update, move and delete', async () => {
    const { call } = await memoryApp({ 'src.md': 'see [[target]] and [[Other|o]]' });
    const first = (await call('GET', '/api/v1/notes/src.md')).json.data.links;
    expect(first.map((l: any) => l.path)).toEqual([null, null]);
    await call('POST', '/api/v1/notes', { path: 'deep/target.md', content: 'here' });
    let src = (await call('GET', '/api/v1/notes/src.md')).json.data;
    expect(src.links[0].path).toBe('deep/target.md');
    expect((await call('GET', `/api/v1/notes/${enc('deep/target.md')}`)).json.data.backlinks).toEqual([
      { path: 'src.md', title: 'src' },
    ]);
    await call('PUT', '/api/v1/notes/src.md', { content: 'now only [[Other]]' });
    expect((await call('GET', `/api/v1/notes/${enc('deep/target.md')}`)).json.data.backlinks).toEqual([]);
    await call('POST', '/api/v1/notes', { path: 'other.md', content: '# O' });
    src = (await call('GET', '/api/v1/notes/src.md')).json.data;
    expect(src.links).toEqual([{ target: 'Other', path: 'other.md', kind: 'wikilink', type: 'note' }]);
    const moved = await call('POST', '/api/v1/notes/other.md/move', { path: 'archive/other-2.md' });
    expect(moved.status).toBe(200);
    src = (await call('GET', '/api/v1/notes/src.md')).json.data;
    expect(src.links[0].path).toBeNull();
    expect((await call('GET', '/api/v1/notes/other.md')).status).toBe(404);
  });

  it('move with updateLinks rewrites wiki and markdown links in other notes', async () => {
    const { call } = await memoryApp({
      'a/src.md': 'x [[old|Alias]] y ![[old#Part]] z [m](../old.md#h) `[[old]]`',
      'old.md': '# Old',
    });
    const res = await call('POST', '/api/v1/notes/old.md/move', { path: 'b/new.md', updateLinks: true });
    expect(res.status).toBe(200);
    expect(res.json.data.rewritten).toEqual(['a/src.md']);
    const src = (await call('GET', `/api/v1/notes/${enc('a/src.md')}`)).json.data;
    expect(src.content).toBe('x [[new|Alias]] y ![[new#Part]] z [m](../b/new.md#h) `[[old]]`');
    expect(src.links.map((l: any) => [l.target, l.path])).toEqual([
      ['new', 'b/new.md'],
      ['../b/new.md', 'b/new.md'],
    ]);
    expect((await call('GET', `/api/v1/notes/${enc('b/new.md')}`)).json.data.backlinks).toEqual([
      { path: 'a/src.md', title: 'src' },
    ]);
  });

  it('lists and serves a note with invalid YAML, with a warning', async () => {
    const { call } = await memoryApp({ 'bad.md': '---\ntitle: [oops\n---\n# Fine\n', 'good.md': 'ok' });
    const list = await call('GET', '/api/v1/notes');
    expect(list.json.data.map((n: any) => n.path)).toEqual(['bad.md', 'good.md']);
    const bad = (await call('GET', '/api/v1/notes/bad.md')).json.data;
    expect(bad.frontmatter).toEqual({});
    expect(bad.title).toBe('Fine');
    expect(bad.warnings[0]).toMatch(/YAML/);
  });

  it('answers bad input in the error envelope, never 500', async () => {
    const { call } = await memoryApp({ 'a.md': 'x' });
    const badJson = await call('POST', '/api/v1/notes', '{"path": ');
    expect(badJson.status).toBe(400);
    expect(badJson.json.error.code).toBe('INVALID_JSON');
    const missing = await call('POST', '/api/v1/notes', { path: 'x.md' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe('VALIDATION_ERROR');
    expect(missing.json.error.message).toMatch(/content/);
    expect((await call('POST', '/api/v1/notes', { path: 'x.txt', content: '' })).json.error.code).toBe(
      'INVALID_PATH',
    );
    expect((await call('POST', '/api/v1/notes', [1, 2])).status).toBe(400);
    const unknown = await call('GET', '/api/v1/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: expect.any(String) },
    });
    // PATCH is the section PATCH (one heading, block or frontmatter key of a note); a method no note
    // route has is still 405.
    const wrong = await call('PATCH', '/api/v1/notes');
    expect(wrong.status).toBe(405);
    expect(wrong.json.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(wrong.headers.get('allow')).toContain('GET');
    expect((await call('DELETE', '/api/v1/notes')).status).toBe(405);
  });

  it('answers 413 above the body limit and keeps the vault unchanged', async () => {
    const { makeApp } = await import('../helpers/app.ts');
    const { memoryNoteStore } = await import('../../adapters/store/memory-note-store.ts');
    const { call } = await makeApp(memoryNoteStore(), { maxBodyBytes: 2048 });
    const res = await call('POST', '/api/v1/notes', { path: 'big.md', content: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await call('GET', '/api/v1/notes/big.md')).status).toBe(404);
  });

  it('answers 410 GONE with the replacement for the retired routes', async () => {
    const { call } = await memoryApp();
    const tools = await call('GET', '/api/v1/agent/tools');
    expect(tools.status).toBe(410);
    expect(tools.json.error.message).toMatch(/agent\/status/);
    expect((await call('POST', '/api/v1/folders', {})).json.error.message).toMatch(/folders\/tree/);
  });

  it('reports health', async () => {
    const { call } = await memoryApp({ 'a.md': 'x' });
    const h = await call('GET', '/api/v1/health');
    expect(h.status).toBe(200);
    expect(h.json.data).toMatchObject({
      status: 'ok',
      version: '0.0.0-test',
      notes: 1,
      index: { state: 'ready' },
    });
  });
});
