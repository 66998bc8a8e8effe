/**
 * Folder scopes over HTTP, as a property: random small vaults, random scopes, random
 * requests (reads and writes) through the whole app with a scoped key. No answer names a path,
 * title or tag of a hidden note; writes outside are 403 and change nothing; reads outside are 404.
 * The same for people, and for anonymous readers of a published note or folder (`/p/<id>/`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inScope, type KeyScope } from '../../core/auth/scope.ts';
import { authApp } from '../helpers/auth-app.ts';

const FOLDERS = ['', 'Work/', 'Work/private/', 'Home/', 'Home/Work/', 'Archive/'];

const vaultArb = fc
  .uniqueArray(fc.record({ folder: fc.constantFrom(...FOLDERS), n: fc.integer({ min: 0, max: 30 }) }), {
    minLength: 1,
    maxLength: 8,
    selector: (x) => x.n,
  })
  .chain((items) =>
    fc.tuple(
      fc.constant(items.map((x) => ({ path: `${x.folder}note${x.n}.md`, token: `zq${x.n}x` }))),
      fc.array(fc.array(fc.nat(items.length - 1), { maxLength: 3 }), {
        minLength: items.length,
        maxLength: items.length,
      }),
    ),
  );

const scopeArb: fc.Arbitrary<KeyScope> = fc.record({
  capabilities: fc.constant(['notes:read', 'notes:write'] as KeyScope['capabilities']),
  folders: fc.uniqueArray(fc.constantFrom('Work/', 'Home/', 'Archive/'), { minLength: 1, maxLength: 2 }),
  exclude: fc.uniqueArray(fc.constantFrom('Work/private/', 'Home/Work/'), { maxLength: 1 }),
});

/** Writes the generated vault: each note titled and tagged by its token, linking as `links` says. */
async function seedVault(
  call: Awaited<ReturnType<typeof authApp>>['call'],
  headers: Record<string, string>,
  notes: { path: string; token: string }[],
  links: number[][],
  tail = '',
) {
  for (const [i, n] of notes.entries()) {
    const body = links[i]!.map((j) => `[[${notes[j]!.path.slice(0, -3)}]]`).join(' ');
    const r = await call('POST', '/api/v1/notes', {
      body: { path: n.path, content: `# Title ${n.token}\n\n#t${n.token} ${body}${tail}\n` },
      headers,
    });
    expect(r.status, r.text).toBe(201);
  }
}

type Req = { method: string; url: (paths: string[]) => string; body?: (paths: string[]) => unknown };
const reqArb = (n: number): fc.Arbitrary<Req> => {
  const i = fc.nat(n - 1);
  return fc.oneof(
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/notes' }),
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/notes?limit=2&fields=path,title,links,backlinks' }),
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/tags' }),
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/folders/tree' }),
    fc.constantFrom('Work', 'Home', 'Work/private', 'Archive').map<Req>((f) => ({
      method: 'GET',
      url: () => `/api/v1/folders/tree/${f}`,
    })),
    fc.constantFrom('note', 'zq', 'tag:t', 'path:Home', 'file:note').map<Req>((q) => ({
      method: 'GET',
      url: () => `/api/v1/search?q=${encodeURIComponent(q)}&limit=5`,
    })),
    i.map<Req>((k) => ({ method: 'GET', url: (p) => `/api/v1/notes/${p[k]}` })),
    i.map<Req>((k) => ({ method: 'GET', url: (p) => `/api/v1/notes/${p[k]}/related` })),
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/events?after=0' }),
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/trash' }),
    fc.constant<Req>({ method: 'GET', url: () => '/api/v1/activity?limit=500' }),
    i.map<Req>((k) => ({
      method: 'PUT',
      url: (p) => `/api/v1/notes/${p[k]}`,
      body: () => ({ content: 'rewritten by the scoped key' }),
    })),
    i.map<Req>((k) => ({ method: 'DELETE', url: (p) => `/api/v1/notes/${p[k]}` })),
    fc.tuple(i, fc.constantFrom('Work/', 'Home/', 'Archive/', '')).map<Req>(([k, to]) => ({
      method: 'POST',
      url: (p) => `/api/v1/notes/${p[k]}/move`,
      body: () => ({ path: `${to}moved${k}.md` }),
    })),
  );
};

describe('folder scopes over HTTP (property)', () => {
  it('no answer names a hidden note; hidden reads are 404 and writes 403', async () => {
    await fc.assert(
      fc.asyncProperty(
        vaultArb.chain(([notes, links]) =>
          fc.tuple(
            fc.constant(notes),
            fc.constant(links),
            scopeArb,
            fc.array(reqArb(notes.length), { minLength: 1, maxLength: 6 }),
          ),
        ),
        async ([notes, links, scope, reqs]) => {
          const { call, firstKey, key } = await authApp({ history: true });
          await seedVault(call, key(firstKey), notes, links);
          const minted = await call('POST', '/api/v1/auth/keys', {
            body: { name: 'scoped', scope },
            headers: key(firstKey),
          });
          const scoped = key(minted.json.data.apiKey);
          const paths = notes.map((n) => n.path);
          const hiddenAtStart = notes.filter((n) => !inScope(scope, n.path));
          for (const r of reqs) {
            const url = r.url(paths);
            const headers = url.startsWith('/api/v1/events')
              ? { ...scoped, accept: 'application/json' }
              : scoped;
            const res = await call(r.method, url, { body: r.body?.(paths), headers });
            expect(res.status, `${r.method} ${url}`).toBeLessThan(500);
            // Nothing hidden is named: no path, no title token, no tag of a hidden note.
            for (const h of hiddenAtStart) {
              expect(res.text, `${r.method} ${url} names ${h.path}`).not.toContain(h.token);
              expect(res.text, `${r.method} ${url} names ${h.path}`).not.toContain(`"${h.path}"`);
            }
            const target = /^\/api\/v1\/notes\/(.+?\.md)(\/|$)/.exec(url)?.[1];
            if (target && !inScope(scope, target)) {
              expect(res.status, `${r.method} ${url}`).toBe(r.method === 'GET' ? 404 : 403);
            }
            const to = (r.body?.(paths) as { path?: string } | undefined)?.path;
            if (r.method === 'POST' && to && !inScope(scope, to)) expect(res.status).toBe(403);
          }
          // The hidden notes are untouched.
          for (const h of hiddenAtStart) {
            const r = await call('GET', `/api/v1/notes/${h.path}`, { headers: key(firstKey) });
            expect(r.status).toBe(200);
            expect(r.json.data.content).toContain(h.token);
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

// A viewer share and a writing share on two folders (the mix where the roles differ), maybe one more.
const shareArb = fc
  .tuple(
    fc.shuffledSubarray(['Work', 'Home', 'Archive'], { minLength: 2, maxLength: 2 }),
    fc.constantFrom('editor', 'manager'),
    fc.option(
      fc.record({
        folder: fc.constantFrom('Work/private', 'Home/Work'),
        role: fc.constantFrom('viewer', 'editor'),
      }),
      { nil: undefined },
    ),
  )
  .map(([[read, write], writer, extra]) => [
    { folder: read!, role: 'viewer' },
    { folder: write!, role: writer },
    ...(extra ? [extra] : []),
  ]);

describe('people over HTTP (property)', () => {
  it("no answer names a note outside a person's shares; writes only where editor or manager", async () => {
    await fc.assert(
      fc.asyncProperty(
        vaultArb.chain(([notes, links]) =>
          fc.tuple(
            fc.constant(notes),
            fc.constant(links),
            shareArb,
            fc.array(reqArb(notes.length), { minLength: 1, maxLength: 6 }),
          ),
        ),
        async ([notes, links, shares, reqs]) => {
          const { call, firstKey, key } = await authApp({ people: true, history: true });
          await seedVault(call, key(firstKey), notes, links);
          const ann = (
            await call('POST', '/api/v1/people', { body: { name: 'Ann' }, headers: key(firstKey) })
          ).json.data.id as string;
          for (const sh of shares)
            expect(
              (await call('POST', `/api/v1/people/${ann}/shares`, { body: sh, headers: key(firstKey) }))
                .status,
            ).toBe(201);
          const inv = await call('POST', `/api/v1/people/${ann}/invite`, { headers: key(firstKey) });
          const s = await call('POST', '/api/v1/invites/password', {
            body: { token: inv.json.data.token, password: 'a long password', as: 'bearer' },
          });
          const person = { authorization: `Bearer ${s.json.data.token}` };
          // The oracle, from the shares alone (not the code under test).
          const under = (p: string, role?: string) =>
            shares.some(
              (sh) => p.startsWith(`${sh.folder}/`) && (role === undefined || sh.role !== 'viewer'),
            );
          const readable = (p: string) => under(p);
          const writable = (p: string) => under(p, 'write');
          const paths = notes.map((n) => n.path);
          const hiddenAtStart = notes.filter((n) => !readable(n.path));
          for (const r of reqs) {
            const url = r.url(paths);
            const headers = url.startsWith('/api/v1/events')
              ? { ...person, accept: 'application/json' }
              : person;
            const res = await call(r.method, url, { body: r.body?.(paths), headers });
            expect(res.status, `${r.method} ${url}`).toBeLessThan(500);
            for (const h of hiddenAtStart) {
              expect(res.text, `${r.method} ${url} names ${h.path}`).not.toContain(h.token);
              expect(res.text, `${r.method} ${url} names ${h.path}`).not.toContain(`"${h.path}"`);
            }
            const target = /^\/api\/v1\/notes\/(.+?\.md)(\/|$)/.exec(url)?.[1];
            if (target && !readable(target)) expect(res.status).toBe(r.method === 'GET' ? 404 : 403);
            if (target && r.method !== 'GET' && !writable(target)) expect(res.status).toBe(403);
            const to = (r.body?.(paths) as { path?: string } | undefined)?.path;
            if (r.method === 'POST' && to && !writable(to)) expect(res.status).toBe(403);
          }
          for (const h of hiddenAtStart) {
            const r = await call('GET', `/api/v1/notes/${h.path}`, { headers: key(firstKey) });
            expect(r.json.data.content).toContain(h.token);
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});

// What is published: a folder (or the whole vault), or one note (an index into the vault).
const publishArb = fc.oneof(
  fc.constantFrom('Work/', 'Home/', 'Archive/', 'Work/private/', '').map((folder) => ({ folder })),
  fc.nat(30).map((k) => ({ note: k })),
);

type PubReq = (paths: string[], rel: (p: string) => string | null) => string;
const pubReqArb = (n: number): fc.Arbitrary<PubReq> => {
  const i = fc.nat(n - 1);
  return fc.oneof(
    fc.constant<PubReq>(() => ''),
    i.map<PubReq>((k) => (p, rel) => rel(p[k]!) ?? p[k]!),
    i.map<PubReq>((k) => (p) => p[k]!),
    i.map<PubReq>((k) => (p) => `..%2F${encodeURIComponent(p[k]!)}`),
    i.map<PubReq>((k) => (p) => `_search?q=${encodeURIComponent(`zq${p[k]!.replace(/\D/g, '')}x`)}`),
    fc
      .constantFrom('note', 'zq', 'Title', 'tag:t', 'path:Home')
      .map<PubReq>((q) => () => `_search?q=${encodeURIComponent(q)}`),
    fc.constant<PubReq>(() => `_files/${'a'.repeat(24)}/x.png`),
    // Anything at all below the root, raw (the URL parser encodes what it must) or encoded.
    fc.string({ unit: 'binary', maxLength: 40 }).map<PubReq>((x) => () => x.replace(/[#?]/g, '')),
    fc.string({ unit: 'binary', maxLength: 40 }).map<PubReq>((x) => () => encodeURIComponent(x)),
  );
};

describe('published pages (property)', () => {
  it('no answer to an anonymous reader carries a path, title, tag or count from outside', async () => {
    await fc.assert(
      fc.asyncProperty(
        vaultArb.chain(([notes, links]) =>
          fc.tuple(
            fc.constant(notes),
            fc.constant(links),
            publishArb,
            fc.array(pubReqArb(notes.length), { minLength: 1, maxLength: 6 }),
          ),
        ),
        async ([notes, links, what, reqs]) => {
          const { call, firstKey, key } = await authApp({ publications: true });
          await seedVault(call, key(firstKey), notes, links, ' words');
          const paths = notes.map((n) => n.path);
          const notePath = 'note' in what ? paths[what.note % paths.length]! : null;
          const folder = 'folder' in what ? what.folder : '';
          const pub = await call('POST', '/api/v1/publications', {
            body: { path: notePath ?? folder },
            headers: key(firstKey),
          });
          expect(pub.status, pub.text).toBe(201);
          const id = pub.json.data.id as string;
          // The oracle, from what was published alone.
          const published = (p: string) => (notePath ? p === notePath : p.startsWith(folder));
          const rel = (p: string) =>
            !published(p)
              ? null
              : (notePath ? p.slice(p.lastIndexOf('/') + 1) : p.slice(folder.length))
                  .split('/')
                  .map(encodeURIComponent)
                  .join('/');
          const hidden = notes.filter((n) => !published(n.path));
          for (const r of reqs) {
            const url = `/p/${id}/${r(paths, rel)}`;
            const res = await call('GET', url);
            expect(res.status, url).toBeLessThan(500);
            // The reader's own query comes back in the search box: anything else is the server's.
            const text = res.text.replace(/ value="[^"]*"/g, '');
            for (const h of hidden) {
              expect(text, `${url} names ${h.path}`).not.toContain(h.token);
              expect(text, `${url} names ${h.path}`).not.toContain(h.path);
            }
            const count = /<p>(\d+) results?<\/p>/.exec(text);
            if (count) expect(Number(count[1])).toBeLessThanOrEqual(notes.length - hidden.length);
            const target = /^\/p\/[^/]+\/(.+\.md)$/.exec(url)?.[1];
            if (target && res.status === 200)
              expect(
                notes.some((n) => published(n.path) && rel(n.path) === target),
                url,
              ).toBe(true);
          }
          // Revoked: the next request is refused and shows nothing.
          expect(
            (await call('DELETE', `/api/v1/publications/${id}`, { headers: key(firstKey) })).status,
          ).toBe(200);
          const gone = await call('GET', `/p/${id}/`);
          expect(gone.status).toBe(404);
          for (const n of notes) expect(gone.text).not.toContain(n.token);
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});

describe('setup link', () => {
  it('completing setup needs admin and the whole vault; once complete, any key may confirm it', async () => {
    const { call, firstKey, key } = await authApp();
    const mint = async (scope: KeyScope) =>
      (await call('POST', '/api/v1/auth/keys', { body: { name: 'k', scope }, headers: key(firstKey) })).json
        .data.apiKey as string;
    const ro = await mint({ capabilities: ['notes:read'] });
    const folderAdmin = await mint({ capabilities: ['admin', 'notes:read'], folders: ['Work/'] });
    for (const k of [ro, folderAdmin]) {
      const r = await call('POST', '/api/v1/auth/link', { headers: key(k) });
      expect([r.status, r.json.error.code]).toEqual([403, 'FORBIDDEN']);
    }
    expect((await call('GET', '/api/v1/system/setup')).json.data.setupComplete).toBe(false);
    expect((await call('POST', '/api/v1/auth/link', { headers: key(firstKey) })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/link', { headers: key(ro) })).status).toBe(200);
  });
});

describe('jwt mode', () => {
  it('a token traded from a scoped key has the key scope', async () => {
    const { call, firstKey, key } = await authApp({ mode: 'jwt' });
    const bearer = async (k: string) => {
      const t = await call('POST', '/api/v1/auth/token', { headers: key(k) });
      expect(t.status, t.text).toBe(200);
      return { authorization: `Bearer ${t.json.data.token}` };
    };
    const admin = await bearer(firstKey);
    await call('POST', '/api/v1/notes', { body: { path: 'Home/h.md', content: 'x' }, headers: admin });
    const minted = await call('POST', '/api/v1/auth/keys', {
      body: { name: 'ro', scope: { capabilities: ['notes:read'], folders: ['Work/'] } },
      headers: admin,
    });
    expect(minted.status, minted.text).toBe(201);
    const ro = await bearer(minted.json.data.apiKey);
    const write = await call('POST', '/api/v1/notes', {
      body: { path: 'Work/a.md', content: 'x' },
      headers: ro,
    });
    expect([write.status, write.json.error.message]).toEqual([403, expect.stringContaining('notes:write')]);
    expect((await call('GET', '/api/v1/notes/Home/h.md', { headers: ro })).status).toBe(404);
    expect((await call('GET', '/api/v1/notes/Home/h.md', { headers: admin })).status).toBe(200);
  });
});
