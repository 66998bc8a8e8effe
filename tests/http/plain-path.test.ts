import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../deploy/node/server.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { tempDir } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';
import { type Ask, comparable, rawAsk } from './answer-contract.ts';

/**
 * The plain path against the hot routes: two real servers over one vault, one with HOT_ROUTES=0
 * (every request through the Hono app) and one as it runs by default (health and cached note
 * reads answered before the app). The reads the hot routes take give the same status, headers
 * and bytes on both; only the default server's hot routes answered, the plain one's never.
 */

const NOTES: Record<string, string> = {
  'a.md': '# A\nSee [[b]]. #x',
  'b.md': '---\ntitle: Bee\n---\nBack to [[a]].',
  'folder/with space.md': '# Spaced\nÜmlauts 🎉 [[a]]',
};

let tmp: Awaited<ReturnType<typeof tempDir>>;
const servers: Record<'hot' | 'plain', { server: RunningServer; key: string }> = {} as never;

beforeAll(async () => {
  tmp = await tempDir('quire-plain-path-');
  for (const [p, text] of Object.entries(NOTES)) {
    await mkdir(join(tmp.dir, 'vault', p, '..'), { recursive: true });
    await writeFile(join(tmp.dir, 'vault', p), text);
  }
  for (const mode of ['hot', 'plain'] as const) {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(tmp.dir, `data-${mode}`),
      VAULT_DIR: join(tmp.dir, 'vault'),
      PAIRING_MODE: 'open-port',
      LOG_LEVEL: 'warn',
      HOT_ROUTES: mode === 'hot' ? '1' : '0',
      LIST_CHUNKS: mode === 'hot' ? '1' : '0',
    });
    const server = await startServer(config, { logger: silentLogger });
    await server.ready;
    const key = ((await (await fetch(`${server.url}/api/v1/system/setup`)).json()) as any).data.apiKey;
    servers[mode] = { server, key };
  }
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(servers)) await s?.server.stop();
  await tmp?.cleanup();
});

/** `ask` on one server, with its own key when `withKey`. */
function on(mode: 'hot' | 'plain', ask: Ask, withKey = true) {
  const { server, key } = servers[mode];
  return rawAsk(server.url, withKey ? { ...ask, headers: [...ask.headers, ['X-Service-Key', key]] } : ask);
}

describe('the plain path (HOT_ROUTES=0, LIST_CHUNKS=0) answers as the accelerated one does', () => {
  it('note reads, cached or not, their 304s, a missing note, no key, and health', async () => {
    const hotBefore = servers.hot.server.fastLaneAnswers();
    const targets = ['/api/v1/notes/a.md', '/api/v1/notes/b.md', '/api/v1/notes/folder/with%20space.md'];
    for (const target of targets)
      for (let round = 0; round < 2; round++) {
        // The second round is of a cached note: the default server's hot route answers it.
        const ask: Ask = { method: 'GET', target, headers: [['X-Request-Id', `r-${round}`]] };
        const hot = await on('hot', ask);
        const plain = await on('plain', ask);
        expect(comparable(plain), `${target} round ${round}`).toEqual(comparable(hot));
        const etag = hot.headers.find(([k]) => k === 'etag')?.[1];
        expect(etag).toBeDefined();
        const again: Ask = { ...ask, headers: [...ask.headers, ['If-None-Match', etag!]] };
        const hot304 = await on('hot', again);
        expect(hot304.status).toBe(304);
        expect(comparable(await on('plain', again)), `${target} 304`).toEqual(comparable(hot304));
      }
    for (const [ask, withKey] of [
      [{ method: 'GET', target: '/api/v1/notes/missing.md', headers: [['X-Request-Id', 'm']] }, true],
      [{ method: 'GET', target: '/api/v1/notes/a.md', headers: [['X-Request-Id', 'k']] }, false],
    ] as [Ask, boolean][]) {
      const hot = await on('hot', ask, withKey);
      expect(comparable(await on('plain', ask, withKey)), ask.target).toEqual(comparable(hot));
    }
    const health: Ask = { method: 'GET', target: '/api/v1/health', headers: [] };
    const [h, p] = [await on('hot', health, false), await on('plain', health, false)];
    expect([p.status, p.headers.map(([k]) => k).sort()]).toEqual([
      h.status,
      h.headers.map(([k]) => k).sort(),
    ]);
    // The whole list (LIST_CHUNKS=0 on the plain server: encoded whole, not in chunks) names the
    // same notes; tests/http/list-chunks.test.ts holds the two ways equal byte for byte.
    const paths = async (mode: 'hot' | 'plain') => {
      const res = await fetch(`${servers[mode].server.url}/api/v1/notes`, {
        headers: { 'X-Service-Key': servers[mode].key, 'Accept-Encoding': 'gzip' },
      });
      return ((await res.json()) as { data: { path: string }[] }).data.map((n) => n.path);
    };
    expect(await paths('plain')).toEqual(await paths('hot'));
    expect(await paths('plain')).toEqual(Object.keys(NOTES).sort());
    // The hot routes did answer on the default server (health, cached notes, their 304s), never on the plain one.
    expect(servers.hot.server.fastLaneAnswers() - hotBefore).toBeGreaterThanOrEqual(4);
    expect(servers.plain.server.fastLaneAnswers()).toBe(0);
  });
});
