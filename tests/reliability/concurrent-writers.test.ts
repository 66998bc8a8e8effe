import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { httpClient } from './scenarios/http.ts';
import { killAll, type ServerProc, startServerProc } from './scenarios/procs.ts';
import { sha256 } from './scenarios/verify.ts';

const CLIENTS = 100;
let server: ServerProc;
let dir: { dir: string; cleanup: () => Promise<void> };
// A fresh pool per test: a kept-alive socket left idle by the previous test can be closed by the
// server (its keep-alive time-out) just as it is reused, which fails that request with a reset
// before the server ever sees it (the client-side keep-alive race, not a server fault).
const newClient = () => httpClient({ keepAlive: true, maxSockets: CLIENTS });
let client = newClient();
let key: Record<string, string>;
const note = (p: string) => `${server.url}/api/v1/notes/${encodeURIComponent(p)}`;

beforeAll(async () => {
  dir = await tempDir();
  server = await startServerProc({
    DATA_DIR: join(dir.dir, 'data'),
    PAIRING_MODE: 'open-port',
    RATE_LIMIT: '0',
  });
  const setup = await client.request('GET', `${server.url}/api/v1/system/setup`);
  key = { 'x-service-key': setup.json.data.apiKey };
}, 60_000);

beforeEach(() => {
  client.close();
  client = newClient();
});

afterAll(async () => {
  client.close();
  await killAll();
  await dir.cleanup();
});

const put = (p: string, content: string, ifMatch?: string) =>
  client.request('PUT', note(p), {
    headers: { ...key, ...(ifMatch ? { 'if-match': `"${ifMatch}"` } : {}) },
    body: { content },
  });

describe(`${CLIENTS} concurrent writers on one note`, () => {
  it('with If-Match on the same version: exactly one wins, every other gets 412 and changes nothing', async () => {
    const created = await client.request('POST', `${server.url}/api/v1/notes`, {
      headers: key,
      body: { path: 'race/one.md', content: 'v0\n' },
    });
    expect(created.status).toBe(201);
    const v0 = created.json.data.checksum as string;
    const outs = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => put('race/one.md', `writer ${i}\n`, v0)),
    );
    const wins = outs.flatMap((o, i) => (o.status === 200 ? [i] : []));
    expect(wins).toHaveLength(1);
    expect(outs.filter((o) => o.status === 412)).toHaveLength(CLIENTS - 1);
    for (const o of outs.filter((x) => x.status === 412))
      expect(o.json.error.code).toBe('PRECONDITION_FAILED');
    expect(await readFile(join(dir.dir, 'data/notes/race/one.md'), 'utf8')).toBe(`writer ${wins[0]}\n`);
  });

  it('read-modify-write loops: one winner per version, and the winners form one unbroken chain', async () => {
    await client.request('POST', `${server.url}/api/v1/notes`, {
      headers: key,
      body: { path: 'race/chain.md', content: 'start\n' },
    });
    const wins: { ifMatch: string; checksum: string; content: string }[] = [];
    let conflicts = 0;
    const writer = async (i: number) => {
      for (let attempt = 0; attempt < 10 * CLIENTS; attempt++) {
        const cur = await client.request('GET', note('race/chain.md'), { headers: key });
        expect(cur.status, JSON.stringify(cur)).toBe(200);
        const content = `${cur.json.data.content}writer ${i} on ${cur.json.data.checksum.slice(0, 8)}\n`;
        const out = await put('race/chain.md', content, cur.json.data.checksum);
        if (out.status === 200) {
          wins.push({ ifMatch: cur.json.data.checksum, checksum: out.json.data.checksum, content });
          return;
        }
        // The body says why when something else comes back (a 400 was seen once under load).
        expect(out.status, JSON.stringify(out)).toBe(412);
        conflicts++;
      }
      throw new Error(`writer ${i} never won`);
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => writer(i)));
    expect(wins).toHaveLength(CLIENTS);
    expect(conflicts).toBeGreaterThan(0);
    // One winner per version: no two wins started from the same checksum, and each win
    // started from the version the previous win made (every update saw every earlier one).
    expect(new Set(wins.map((w) => w.ifMatch)).size).toBe(CLIENTS);
    const after = new Map(wins.map((w) => [w.ifMatch, w]));
    const first = wins.find((w) => !wins.some((o) => o.checksum === w.ifMatch))!;
    let cur = first;
    let length = 1;
    while (after.has(cur.checksum)) {
      cur = after.get(cur.checksum)!;
      length++;
    }
    expect(length).toBe(CLIENTS);
    const disk = await readFile(join(dir.dir, 'data/notes/race/chain.md'), 'utf8');
    expect(disk).toBe(cur.content);
    expect(disk.split('\n').filter((l) => l.startsWith('writer '))).toHaveLength(CLIENTS);
  }, 120_000);

  it('without If-Match: every write succeeds and the final note is one of them in full', async () => {
    await client.request('POST', `${server.url}/api/v1/notes`, {
      headers: key,
      body: { path: 'race/last.md', content: 'start\n' },
    });
    const versions = Array.from(
      { length: CLIENTS },
      (_, i) => `# writer ${i}\n${`line ${i} `.repeat(200 * (i % 25))}\nend ${i}\n`,
    );
    const outs = await Promise.all(versions.map((v) => put('race/last.md', v)));
    expect(outs.map((o) => o.status)).toEqual(versions.map(() => 200));
    const disk = await readFile(join(dir.dir, 'data/notes/race/last.md'), 'utf8');
    expect(versions).toContain(disk);
    const got = await client.request('GET', note('race/last.md'), { headers: key });
    expect(got.json.data.checksum).toBe(sha256(disk));
    expect(outs.map((o) => o.json.data.checksum)).toContain(sha256(disk));
  });
});
