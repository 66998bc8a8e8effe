import { describe, expect, it } from 'vitest';
import type { KvNamespaceLike } from '../../adapters/store/kv-state-store.ts';
import type { R2BucketLike } from '../../adapters/store/r2-note-store.ts';
import { tempDir } from '../helpers/app.ts';
import { runRuntimeContract } from './contract.ts';
import { ensureRuntimes, startWorkerd } from './runtimes.ts';

// Miniflare (and workerd) are installed on first use into .cache/on-demand (not by npm ci).
await ensureRuntimes();

runRuntimeContract('workerd (Worker + R2 + KV + Durable Object, via Miniflare)', () => startWorkerd());

describe('the Worker beyond the contract', () => {
  // Two starts of workerd each: a hang guard for a loaded machine, not a speed bound.
  it('notes, setup state and the index cache survive a restart of workerd', async () => {
    const tmp = await tempDir('quire-workerd-restart-');
    const vars = { INDEX_CACHE_SAVE_SECONDS: '0' };
    const first = await startWorkerd({ persistDir: tmp.dir, vars });
    let key = '';
    try {
      key = ((await (await fetch(`${first.url}/api/v1/system/setup`)).json()) as any).data.apiKey;
      const headers = { 'x-service-key': key, 'content-type': 'application/json' };
      expect((await fetch(`${first.url}/api/v1/auth/link`, { method: 'POST', headers })).status).toBe(200);
      for (const [path, content] of [
        ['a.md', '# A\n[[b]]'],
        ['deep/b.md', '# B'],
      ]) {
        const res = await fetch(`${first.url}/api/v1/notes`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ path, content }),
        });
        expect(res.status).toBe(201);
      }
      // The alarm after a write saves the index cache into KV.
      const kv = (await first.mf.getKVNamespace('STATE')) as unknown as KvNamespaceLike;
      const deadline = Date.now() + 10_000;
      let cache: string | null = null;
      while (Date.now() < deadline && !cache?.includes('deep/b.md')) {
        cache = await kv.get('quire:index-cache.json', 'text');
        if (!cache?.includes('deep/b.md')) await new Promise((r) => setTimeout(r, 50));
      }
      expect(cache).toContain('deep/b.md');
    } finally {
      await first.stop();
    }

    const second = await startWorkerd({ persistDir: tmp.dir, vars });
    try {
      const setup = ((await (await fetch(`${second.url}/api/v1/system/setup`)).json()) as any).data;
      expect(setup.setupComplete).toBe(true);
      const list = await fetch(`${second.url}/api/v1/notes`, { headers: { 'x-service-key': key } });
      const notes = ((await list.json()) as any).data;
      expect(notes.map((n: any) => [n.path, n.backlinks.map((b: any) => b.path)])).toEqual([
        ['a.md', []],
        ['deep/b.md', ['a.md']],
      ]);
    } finally {
      await second.stop();
      await tmp.cleanup();
    }
  }, 60_000);

  it('versions and the trash live in R2: a deleted note is restored after a restart of workerd', async () => {
    const tmp = await tempDir('quire-workerd-history-');
    const first = await startWorkerd({ persistDir: tmp.dir });
    let key = '';
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { 'x-service-key': key };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    try {
      key = ((await (await fetch(`${first.url}/api/v1/system/setup`)).json()) as any).data.apiKey;
      expect((await call(first.url, 'POST', '/auth/link')).status).toBe(200);
      expect(
        (await call(first.url, 'POST', '/notes', { path: 'c.md', content: '# C\n\nfirst' })).status,
      ).toBe(201);
      expect((await call(first.url, 'PUT', '/notes/c.md', { content: '# C\n\nsecond' })).status).toBe(200);
      expect((await call(first.url, 'DELETE', '/notes/c.md')).json.data).toMatchObject({ deleted: 'c.md' });
      const health = await call(first.url, 'GET', '/health');
      expect(health.json.data.history).toMatchObject({ state: 'on', trash: 1 });
      // The history's objects sit under a dot-folder of the NOTES bucket: never listed as notes.
      const bucket = (await first.mf.getR2Bucket('NOTES')) as unknown as R2BucketLike;
      const listed = await bucket.list({ prefix: '.quire/history/' });
      expect(listed.objects.length).toBeGreaterThan(0);
      expect((await call(first.url, 'GET', '/notes')).json.data).toEqual([]);
    } finally {
      await first.stop();
    }

    const second = await startWorkerd({ persistDir: tmp.dir });
    try {
      const trash = (await call(second.url, 'GET', '/trash')).json.data;
      expect(trash.map((t: any) => [t.path, t.kind])).toEqual([['c.md', 'note']]);
      const restored = await call(second.url, 'POST', `/trash/${encodeURIComponent(trash[0].id)}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.json.data.path).toBe('c.md');
      const note = await call(second.url, 'GET', '/notes/c.md');
      expect(note.json.data.content).toBe('# C\n\nsecond');
      const versions = (await call(second.url, 'GET', '/notes/c.md/versions')).json.data;
      expect(versions.length).toBeGreaterThanOrEqual(2);
      const oldest = versions[versions.length - 1];
      const got = await call(second.url, 'GET', `/notes/c.md/versions/${encodeURIComponent(oldest.id)}`);
      expect(got.json.data.content).toBe('# C\n\nfirst');
      expect((await call(second.url, 'GET', '/trash')).json.data).toEqual([]);
    } finally {
      await second.stop();
      await tmp.cleanup();
    }
  }, 60_000);

  it('a bad variable answers every request with one line naming it', async () => {
    const rt = await startWorkerd({ vars: { SERVICE_AUTH_MODE: 'none' } });
    try {
      const res = await fetch(`${rt.url}/api/v1/health`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe('NOT_READY');
      expect(body.error.message).toMatch(/^quire: SERVICE_AUTH_MODE=none refuses/);
    } finally {
      await rt.stop();
    }
  });

  it('damaged credentials in KV stop every request with one line, and are never replaced', async () => {
    const rt = await startWorkerd();
    try {
      const kv = (await rt.mf.getKVNamespace('STATE')) as unknown as KvNamespaceLike;
      await kv.put('quire:credentials.json', '{"v":1');
      const res = await fetch(`${rt.url}/api/v1/system/setup`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as any).error.message).toMatch(/^quire: credentials\.json .*not valid JSON/);
      expect(await kv.get('quire:credentials.json', 'text')).toBe('{"v":1');
    } finally {
      await rt.stop();
    }
  });
});
