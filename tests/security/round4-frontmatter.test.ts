/**
 * Security review, fourth round, finding 6, over real HTTP against the Node server: frontmatter
 * given as a value (POST/PUT `frontmatter`, a PATCH of a frontmatter key) is held to a key count, a
 * size and a depth before any YAML is made of it. 600,000 keys in one POST took 12 s to a 400 (the
 * YAML was written and read back first) and stalled health meanwhile.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FRONTMATTER_MAX_BYTES, FRONTMATTER_MAX_KEYS } from '../../core/notes/frontmatter-check.ts';
import { openPortServers } from '../helpers/open-port-servers.ts';

const start = openPortServers();

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

describe('finding 6: frontmatter limits before the write-and-reparse check', () => {
  it('too many keys, too many bytes: 400 FRONTMATTER_TOO_LARGE naming the limit, nothing written', async () => {
    const s = await start();
    const many = await s.call('POST', '/api/v1/notes', {
      path: 'many.md',
      content: '# Many\n',
      frontmatter: keys(50_000),
    });
    expect(many.status).toBe(400);
    expect(many.json.error.code).toBe('FRONTMATTER_TOO_LARGE');
    expect(many.json.error.details).toEqual({ limit: 'keys', max: FRONTMATTER_MAX_KEYS });
    expect(existsSync(join(s.vaultDir, 'many.md'))).toBe(false);
    // Keys inside nested objects and array items count too.
    const nested = await s.call('POST', '/api/v1/notes', {
      path: 'nested.md',
      content: 'x',
      frontmatter: { a: { b: Array.from({ length: FRONTMATTER_MAX_KEYS + 1 }, () => 1) } },
    });
    expect([nested.status, nested.json.error.code, nested.json.error.details?.limit]).toEqual([
      400,
      'FRONTMATTER_TOO_LARGE',
      'keys',
    ]);
    const big = await s.call('POST', '/api/v1/notes', {
      path: 'big.md',
      content: 'x',
      frontmatter: { note: 'y'.repeat(FRONTMATTER_MAX_BYTES + 1) },
    });
    expect([big.status, big.json.error.code]).toEqual([400, 'FRONTMATTER_TOO_LARGE']);
    expect(big.json.error.details).toEqual({ limit: 'bytes', max: FRONTMATTER_MAX_BYTES });
    expect(existsSync(join(s.vaultDir, 'big.md'))).toBe(false);

    expect((await s.call('POST', '/api/v1/notes', { path: 'ok.md', content: '# ok\n' })).status).toBe(201);
    const put = await s.call('PUT', '/api/v1/notes/ok.md', { content: 'x', frontmatter: keys(5_000) });
    expect([put.status, put.json.error.code]).toEqual([400, 'FRONTMATTER_TOO_LARGE']);
    const patch = await s.call('PATCH', '/api/v1/notes/ok.md', {
      operation: 'replace',
      target: { type: 'frontmatter', key: 'd' },
      content: keys(5_000),
    });
    expect([patch.status, patch.json.error.code]).toEqual([400, 'FRONTMATTER_TOO_LARGE']);
    expect((await s.call('GET', '/api/v1/notes/ok.md')).json.data.content).toBe('# ok\n');
  });

  it('frontmatter at the key limit is written and reads back', async () => {
    const s = await start();
    const fm = keys(FRONTMATTER_MAX_KEYS);
    const made = await s.call('POST', '/api/v1/notes', {
      path: 'full.md',
      content: '# Full\n',
      frontmatter: fm,
    });
    expect(made.status).toBe(201);
    expect((await s.call('GET', '/api/v1/notes/full.md')).json.data.frontmatter).toEqual(fm);
  });
});
