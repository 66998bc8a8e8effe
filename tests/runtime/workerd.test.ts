import { describe, expect, it } from 'vitest';
import type { KvNamespaceLike } from '../../adapters/store/kv-state-store.ts';
import { tempDir } from '../helpers/app.ts';
import { runRuntimeContract } from './contract.ts';
import { ensureRuntimes, startWorkerd } from './runtimes.ts';

// Miniflare (and workerd) are installed on first use into .cache/on-demand (not by npm ci).
await ensureRuntimes();

runRuntimeContract('workerd (Worker + R2 + KV + Durable Object, via Miniflare)', () => startWorkerd());

describe('the Worker beyond the contract', () => {
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
  });

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
