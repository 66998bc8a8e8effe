/**
 * What a server restarted over the same vault answers first: every read is the vault's, or a 503
 * with Retry-After; health says `starting` until loading begins and `ready` only when the reads
 * are the vault's. A real `quire serve` process over a temp vault, polled from the moment it
 * listens (the first moment it can answer), stopped with SIGTERM between the starts.
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { quireDaemon } from './node/cli/run.ts';

const TRIES = Number(process.env.RESTART_TRIES ?? 12);

let tmp: Awaited<ReturnType<typeof tempDir>>;
let env: Record<string, string>;
let vault: string;
let key = '';

/** The vault's notes as on disk, sorted. */
async function onDisk(): Promise<string[]> {
  const names = await readdir(vault, { recursive: true });
  return names.filter((n) => n.endsWith('.md') && !n.split('/').some((p) => p.startsWith('.'))).sort();
}

/** Starts `quire serve` over the vault; resolves with its URL once it listens. */
async function start() {
  const server = quireDaemon(['serve', '--port', '0', '--no-relay'], env);
  const { url } = await server.waitForLog('listening', 30_000);
  return { server, url: url as string };
}

const auth = () => ({ authorization: `Bearer ${key}` });

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

beforeAll(async () => {
  tmp = await tempDir('quire-restart-');
  vault = join(tmp.dir, 'vault');
  env = { DATA_DIR: join(tmp.dir, 'data'), VAULT_DIR: vault, LOG_LEVEL: 'info' };
  const { server, url } = await start();
  try {
    key = (await (await fetch(`${url}/api/v1/system/setup`)).json()).data.apiKey;
    await waitFor(async () =>
      (await fetch(`${url}/api/v1/notes`, { headers: auth() })).ok ? true : undefined,
    );
    for (const n of ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon']) {
      const res = await fetch(`${url}/api/v1/notes`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ path: `${n}.md`, content: `# ${n}\n\nsee [[Alpha]] #tag${n.length}\n` }),
      });
      expect(res.status).toBe(201);
    }
    // Written on disk while the server runs: the watcher adopts it.
    await writeFile(join(vault, 'Broken.md'), '---\ntitle: [unclosed\n---\nbroken frontmatter [[Beta]]\n');
    await waitFor(async () => {
      const list = await (await fetch(`${url}/api/v1/notes`, { headers: auth() })).json();
      return list.data.some((n: { path: string }) => n.path === 'Broken.md') ? true : undefined;
    });
    const del = await fetch(`${url}/api/v1/notes/Gamma.md`, { method: 'DELETE', headers: auth() });
    expect(del.status).toBe(200);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);

afterAll(async () => {
  await tmp?.cleanup();
});

/** The first answers of one start, polled from the moment it listens; the health states seen. */
async function firstAnswers(url: string) {
  const states: string[] = [];
  const health = async () => {
    const h = (await (await fetch(`${url}/api/v1/health`)).json()).data;
    states.push(`${h.index.state}:${h.index.done}/${h.index.total}`);
    return h;
  };
  const h0 = await health();
  for (;;) {
    const res = await fetch(`${url}/api/v1/notes`, { headers: auth() });
    if (res.status === 200) {
      const list = (await res.json()).data as { path: string }[];
      return { list: list.map((n) => n.path).sort(), states, h0 };
    }
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    await health();
  }
}

describe('a restarted server answers the vault from its first list', () => {
  it(`lists exactly the vault from the first 200, ${TRIES} restarts; health says starting, never idle`, async () => {
    for (let i = 0; i < TRIES; i++) {
      // Every other start, the vault changed while the server was down (an edit outside it).
      if (i % 3 === 1) await writeFile(join(vault, `Down${i}.md`), `# made while down ${i}\n`);
      if (i % 3 === 2) await rm(join(vault, `Down${i - 1}.md`));
      const expected = await onDisk();
      const { server, url } = await start();
      try {
        const { list, states } = await firstAnswers(url);
        expect(list, `start ${i}: health seen ${states.join(' ')}`).toEqual(expected);
        for (const s of states) {
          expect(s, `start ${i}`).not.toMatch(/^idle/);
          expect(s, `start ${i}`).not.toBe('ready:0/0');
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
  }, 240_000);

  it('the other reads right after a start are the vault or 503 with Retry-After', async () => {
    await writeFile(join(vault, 'Late.md'), '# late\n\n[[Beta]] #late\n');
    await rm(join(vault, 'Delta.md'));
    const { server, url } = await start();
    try {
      const reads = [
        '/api/v1/notes/Late.md',
        '/api/v1/notes/Delta.md',
        '/api/v1/notes/Beta.md',
        '/api/v1/tags',
        '/api/v1/folders/tree',
        '/api/v1/search?q=late',
      ];
      const first = new Map<string, { status: number; body: any }>();
      await waitFor(async () => {
        await Promise.all(
          reads
            .filter((r) => !first.has(r))
            .map(async (r) => {
              const res = await fetch(`${url}${r}`, { headers: auth() });
              if (res.status === 503) {
                expect(res.headers.get('retry-after'), r).toMatch(/^\d+$/);
                await res.body?.cancel();
                return;
              }
              first.set(r, { status: res.status, body: await res.json() });
            }),
        );
        return first.size === reads.length ? true : undefined;
      });
      expect(first.get('/api/v1/notes/Late.md')!.status).toBe(200);
      expect(first.get('/api/v1/notes/Delta.md')!.status).toBe(404);
      const back = JSON.stringify(first.get('/api/v1/notes/Beta.md')!.body.data.backlinks);
      expect(back).toContain('Late.md');
      expect(back).toContain('Broken.md');
      const tags = JSON.stringify(first.get('/api/v1/tags')!.body);
      expect(tags).toContain('late');
      const tree = JSON.stringify(first.get('/api/v1/folders/tree')!.body);
      expect(tree).toContain('Late.md');
      expect(tree).not.toContain('Delta.md');
      const search = JSON.stringify(first.get('/api/v1/search?q=late')!.body);
      expect(search).toContain('Late.md');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);
});
