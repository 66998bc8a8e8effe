import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { stateListStore } from '../../adapters/http/list/persisted-list.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { requester } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

/**
 * The whole list's two ways (adapters/http/list/full-list.ts) held equal: one note service, two
 * apps over it, the chunked accelerator (the default, with its persisted list) and the plain way
 * (LIST_CHUNKS=0). After every step of a seeded run of creates, updates, moves and deletes, both
 * answer the same JSON in every encoding, with the same ETag.
 */

/** A small deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const decode = (encoding: string | null, body: Buffer): string => {
  if (encoding === 'gzip') return zlib.gunzipSync(body).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(body).toString('utf8');
  return body.toString('utf8');
};

describe('the whole note list, in chunks and plain', () => {
  it('answers the same JSON and ETag in every encoding through a seeded run of writes', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++)
      files[`f${i % 7}/note-${i}.md`] = `# Note ${i}\nSee [[note-${(i * 7) % 300}]]. #t${i % 5}`;
    const clock = { now: () => Date.now() };
    const notes = createNoteService({
      store: memoryNoteStore({ files }),
      clock,
      state: memoryStateStore(),
      logger: silentLogger,
    });
    await notes.load();
    const base = { notes, version: '0.0.0-test', clock, logger: silentLogger, instanceId: 'same' };
    // The encoded bytes as sent, decoded here (both apps name the same instance in their ETags).
    const raw = async (app: ReturnType<typeof createApp>, encoding: string) => {
      const res = await app.request('http://127.0.0.1:3000/api/v1/notes', {
        headers: { 'accept-encoding': encoding },
      });
      return {
        etag: res.headers.get('etag'),
        json: decode(res.headers.get('content-encoding'), Buffer.from(await res.arrayBuffer())),
      };
    };
    const apps = {
      chunked: createApp({ ...base, listStore: stateListStore(memoryStateStore()) }),
      plain: createApp({ ...base, listChunks: false }),
    };
    const chunked = requester(apps.chunked);
    const same = async (step: string) => {
      for (const encoding of ['identity', 'gzip', 'br']) {
        const a = await raw(apps.chunked, encoding);
        const b = await raw(apps.plain, encoding);
        expect(a.json, `${step}, ${encoding}`).toBe(b.json);
        expect(a.etag, `${step}, ${encoding}`).toBe(b.etag);
        expect(JSON.parse(a.json).data.length).toBe(notes.list().items.length);
      }
    };
    await same('start');
    const random = rng(20261207);
    const pick = () => {
      const paths = notes.list().items.map((s) => s.path);
      return paths[Math.floor(random() * paths.length)]!;
    };
    let made = 0;
    for (let step = 0; step < 40; step++) {
      const r = random();
      if (r < 0.3) {
        const res = await chunked('POST', '/api/v1/notes', {
          body: { path: `new/n-${made++}.md`, content: `# New ${step}\n[[note-${step}]]` },
        });
        expect(res.status).toBe(201);
      } else if (r < 0.6) {
        const res = await chunked('PUT', `/api/v1/notes/${encodeURIComponent(pick())}`, {
          body: { content: `# Changed at ${step}\n#changed [[note-${step * 3}]]` },
        });
        expect(res.status).toBe(200);
      } else if (r < 0.8) {
        const from = pick();
        const res = await chunked('POST', `/api/v1/notes/${encodeURIComponent(from)}/move`, {
          body: { path: `moved/m-${step}.md`, updateLinks: random() < 0.5 },
        });
        expect(res.status).toBe(200);
      } else {
        const res = await chunked('DELETE', `/api/v1/notes/${encodeURIComponent(pick())}`);
        expect(res.status).toBe(200);
      }
      await same(`step ${step}`);
    }
    expect(made).toBeGreaterThan(5);
  });
});
