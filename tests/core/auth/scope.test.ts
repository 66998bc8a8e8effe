/**
 * Scoped keys in the core: stored scopes and old credentials files, the principal the
 * authenticator gives, the route table, and the scoped views (a property test: random vaults,
 * random scopes, random requests; no answer names a path outside the scope).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../../adapters/store/memory-state-store.ts';
import { folderShown, routeCapability } from '../../../core/auth/access.ts';
import { createAuthenticator } from '../../../core/auth/authenticator.ts';
import { createJwt } from '../../../core/auth/jwt.ts';
import { inScope, type KeyScope } from '../../../core/auth/scope.ts';
import { scopedFeedEvent, scopedNotes, scopedRetrieval } from '../../../core/auth/scoped.ts';
import { AUTH_STATE_KEY, createAuthService, scopeWithin } from '../../../core/auth/service.ts';
import { isDomainError } from '../../../core/errors.ts';
import { createIdentity, serverIdOf } from '../../../core/identity.ts';
import { createNoteService } from '../../../core/notes/service.ts';
import type { Principal } from '../../../core/ports.ts';
import { createRetrieval } from '../../../core/search/retrieval.ts';

const clock = { now: () => Date.now() };

/** A credentials file whose one key is stored with no `scope`, as a full-access key is written. */
const identity = await createIdentity();
const OLD_STATE = {
  v: 1,
  serverId: (await serverIdOf(identity.publicKey)) as string,
  identity,
  createdAt: '2026-01-01T00:00:00.000Z',
  setupComplete: true,
  linkedAt: '2026-01-01T00:00:00.000Z',
  firstKeyPlain: null,
  keys: [
    {
      id: 'key_first',
      name: 'first key',
      kind: 'first',
      hash: 'a'.repeat(64),
      last4: 'aaaa',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: null,
    },
  ],
  relaySecret: 'r'.repeat(43),
  pairing: { code: 'ABCD-EFGH', expiresAt: '2026-01-01T00:00:00.000Z' },
};

describe('stored scopes', () => {
  it('loads a key stored without a scope as a key with full access', async () => {
    const state = memoryStateStore();
    await state.put(AUTH_STATE_KEY, JSON.stringify(OLD_STATE));
    const auth = createAuthService({ state, clock });
    await auth.init();
    expect(auth.listKeys()).toEqual([expect.objectContaining({ id: 'key_first', scope: null })]);
    expect(auth.scopeOf('key_first')).toBeUndefined();
  });

  it('keeps a minted key scope across a restart, and the authenticator puts it on the principal', async () => {
    const state = memoryStateStore();
    const auth = createAuthService({ state, clock });
    await auth.init();
    const scope: KeyScope = { capabilities: ['notes:read'], folders: ['Work/'], exclude: ['Work/private/'] };
    const minted = await auth.mintKey('reader', scope);
    expect(minted.scope).toEqual(scope);
    const full = await auth.mintKey('full');
    expect(full.scope).toBeNull();

    const again = createAuthService({ state, clock });
    await again.init();
    expect(again.listKeys().find((k) => k.id === minted.id)?.scope).toEqual(scope);

    const authn = createAuthenticator({ mode: 'api-key', auth: again });
    const p = await authn.authenticate({ apiKey: minted.apiKey });
    expect(p.scope).toEqual(scope);
    // The verified cache and the fast path's known() carry it too.
    expect((await authn.authenticate({ apiKey: minted.apiKey })).scope).toEqual(scope);
    expect(authn.known?.({ apiKey: minted.apiKey })?.scope).toEqual(scope);
    const f = await authn.authenticate({ bearer: full.apiKey });
    expect(f.scope).toBeUndefined();
    expect(authn.known?.({ apiKey: full.apiKey })?.scope).toBeUndefined();
  });

  it('a jwt traded from a scoped key carries the key scope', async () => {
    const auth = createAuthService({ state: memoryStateStore(), clock });
    await auth.init();
    const scope: KeyScope = { capabilities: ['notes:read', 'files:read'] };
    const k = await auth.mintKey('ro', scope);
    const jwt = createJwt({ secret: 'x'.repeat(40), clock });
    const authn = createAuthenticator({ mode: 'jwt', auth, jwt });
    const { token } = await jwt.issue(k.id);
    expect((await authn.authenticate({ bearer: token })).scope).toEqual(scope);
    const full = await auth.mintKey('full');
    expect((await authn.authenticate({ bearer: (await jwt.issue(full.id)).token })).scope).toBeUndefined();
  });

  it('scopeWithin: a scoped key never mints more than it holds', () => {
    const ro: KeyScope = { capabilities: ['notes:read'] };
    const admin: KeyScope = { capabilities: ['admin', 'notes:read', 'notes:write'] };
    expect(scopeWithin(ro, undefined)).toBe(true);
    expect(scopeWithin(undefined, admin)).toBe(false);
    expect(scopeWithin(ro, admin)).toBe(true);
    expect(scopeWithin({ capabilities: ['files:read'] }, admin)).toBe(false);
    const work: KeyScope = {
      capabilities: ['admin', 'notes:read'],
      folders: ['Work/'],
      exclude: ['Work/p/'],
    };
    expect(scopeWithin({ capabilities: ['notes:read'], folders: ['Work/a/'] }, work)).toBe(true);
    expect(scopeWithin({ capabilities: ['notes:read'], folders: ['Work/'] }, work)).toBe(false);
    expect(
      scopeWithin({ capabilities: ['notes:read'], folders: ['Work/'], exclude: ['Work/p/'] }, work),
    ).toBe(true);
    expect(scopeWithin({ capabilities: ['notes:read'] }, work)).toBe(false);
    expect(scopeWithin({ capabilities: ['notes:read'], folders: ['Home/'] }, work)).toBe(false);
  });

  it('inScope never lets a climbing path through, and folderShown shows ancestors of a scope folder', () => {
    const s: KeyScope = { capabilities: ['notes:read'], folders: ['Work/a/'], exclude: ['Work/a/p/'] };
    expect(inScope(s, 'Work/a/../../Home/x.md')).toBe(false);
    expect(inScope(s, 'Work/a/x.md')).toBe(true);
    expect(inScope(s, 'Work/a/p/x.md')).toBe(false);
    expect(folderShown(s, 'Work')).toBe(true);
    expect(folderShown(s, 'Work/b')).toBe(false);
    expect(folderShown(s, 'Work/a/p')).toBe(false);
  });
});

describe('route capabilities', () => {
  it('names the capability of every route family, and closes anything unknown', () => {
    const cases: [string, string, string | null][] = [
      ['GET', '/api/v1/notes', 'notes:read'],
      ['GET', '/api/v1/notes/a.md', 'notes:read'],
      ['PUT', '/api/v1/notes/a.md', 'notes:write'],
      ['PATCH', '/api/v1/notes/a.md', 'notes:write'],
      ['POST', '/api/v1/notes/a.md/move', 'notes:write'],
      ['DELETE', '/api/v1/notes/a.md', 'notes:write'],
      ['GET', '/api/v1/notes/a.md/versions', 'notes:read'],
      ['POST', '/api/v1/trash/x/restore', 'notes:write'],
      ['DELETE', '/api/v1/trash/x', 'admin'],
      ['GET', '/api/v1/folders/tree', 'notes:read'],
      ['GET', '/api/v1/tags', 'notes:read'],
      ['GET', '/api/v1/search', 'notes:read'],
      ['GET', '/api/v1/events', 'notes:read'],
      ['GET', '/api/v1/files/a.png', 'files:read'],
      ['HEAD', '/api/v1/files/a.png', 'files:read'],
      ['PUT', '/api/v1/files/a.png', 'files:write'],
      ['POST', '/api/v1/agent/chat', 'agent'],
      ['GET', '/api/v1/agent/status', 'agent'],
      ['GET', '/api/v1/channels', 'admin'],
      ['GET', '/api/v1/plugins', 'admin'],
      ['POST', '/api/v1/plugins/x/anything', 'admin'],
      ['GET', '/api/v1/security/audit', 'admin'],
      ['GET', '/api/v1/auth/keys', 'admin'],
      ['POST', '/api/v1/auth/keys', 'admin'],
      ['POST', '/api/v1/auth/pair-code/rotate', 'admin'],
      ['GET', '/api/v1/system/info', 'admin'],
      ['POST', '/api/v1/auth/token', null],
      ['POST', '/mcp', null],
      ['GET', '/api/v1/something-new', 'admin'],
    ];
    for (const [m, p, cap] of cases) expect([m, p, routeCapability(m, p)]).toEqual([m, p, cap]);
  });
});

// ---------------------------------------------------------------------------------------------
// The property: random vaults, random scopes, random requests; no answer names a hidden path.

const FOLDERS = ['', 'Work/', 'Work/private/', 'Work/pub/', 'Home/', 'Home/Work/', 'Archive/'];
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];

const vaultArb = fc
  .uniqueArray(
    fc.record({ folder: fc.constantFrom(...FOLDERS), name: fc.constantFrom(...NAMES), n: fc.nat(3) }),
    { minLength: 1, maxLength: 12, selector: (x) => `${x.folder}${x.name}${x.n}` },
  )
  .chain((notes) =>
    fc.tuple(
      fc.constant(notes.map((x) => `${x.folder}${x.name}${x.n}.md`)),
      fc.array(fc.array(fc.nat(notes.length - 1), { maxLength: 4 }), {
        minLength: notes.length,
        maxLength: notes.length,
      }),
      fc.array(fc.constantFrom('x', 'y', 'z'), { minLength: notes.length, maxLength: notes.length }),
    ),
  );

const scopeArb: fc.Arbitrary<KeyScope> = fc.record({
  capabilities: fc.constant(['notes:read', 'notes:write'] as KeyScope['capabilities']),
  folders: fc.uniqueArray(fc.constantFrom('Work/', 'Work/pub/', 'Home/', 'Archive/'), { maxLength: 2 }),
  exclude: fc.uniqueArray(fc.constantFrom('Work/private/', 'Home/Work/', 'Archive/'), { maxLength: 2 }),
});

type Req =
  | { k: 'list' }
  | { k: 'tags' }
  | { k: 'tree'; folder: string }
  | { k: 'get'; i: number }
  | { k: 'search'; q: string }
  | { k: 'retrieve'; q: string }
  | { k: 'related'; i: number }
  | { k: 'history' };

const reqArb = (n: number): fc.Arbitrary<Req> =>
  fc.oneof(
    fc.constant({ k: 'list' as const }),
    fc.constant({ k: 'tags' as const }),
    fc.record({
      k: fc.constant('tree' as const),
      folder: fc.constantFrom('', 'Work', 'Work/private', 'Home', 'Home/Work', 'Archive'),
    }),
    fc.record({ k: fc.constant('get' as const), i: fc.nat(n - 1) }),
    fc.record({ k: fc.constant('search' as const), q: fc.constantFrom(...NAMES, 'x', 'tag:y', 'Work') }),
    fc.record({ k: fc.constant('retrieve' as const), q: fc.constantFrom(...NAMES, 'z') }),
    fc.record({ k: fc.constant('related' as const), i: fc.nat(n - 1) }),
    fc.constant({ k: 'history' as const }),
  );

/** Every string under a `path` or `from` key, anywhere in `v`. */
function pathsIn(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) pathsIn(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'path' || k === 'from') && typeof x === 'string') out.push(x);
      else pathsIn(x, out);
    }
  }
  return out;
}

describe('scoped views hide everything outside the folders (property)', () => {
  it('no answer to any request names an out-of-scope path', async () => {
    await fc.assert(
      fc.asyncProperty(
        vaultArb.chain(([paths, links, tags]) =>
          fc.tuple(
            fc.constant(paths),
            fc.constant(links),
            fc.constant(tags),
            scopeArb,
            fc.array(reqArb(paths.length), { minLength: 1, maxLength: 8 }),
          ),
        ),
        async ([paths, links, tags, scope, reqs]) => {
          const files: Record<string, string> = {};
          paths.forEach((p, i) => {
            const body = links[i]!.map((j) => `[[${paths[j]!.slice(0, -3)}]]`).join(' ');
            files[p] = `# ${p.split('/').at(-1)!.slice(0, -3)}\n\n#${tags[i]} ${body}\n`;
          });
          const notes = createNoteService({ store: memoryNoteStore({ files }), clock });
          await notes.load();
          const p: Principal = { id: 'k', method: 'api-key', scope };
          const view = scopedNotes(notes, p);
          const retrieval = scopedRetrieval(createRetrieval({ notes }), p);
          const hidden = paths.filter((x) => !inScope(scope, x));
          const shown = paths.filter((x) => inScope(scope, x));
          for (const r of reqs) {
            let answer: unknown;
            try {
              if (r.k === 'list') answer = view.list().items;
              else if (r.k === 'tags') answer = view.tags();
              else if (r.k === 'tree') answer = view.tree(r.folder);
              else if (r.k === 'get') answer = await view.get(paths[r.i]);
              else if (r.k === 'search') answer = await view.search(r.q, 5);
              else if (r.k === 'retrieve') answer = await retrieval.search(r.q, { limit: 5 });
              else if (r.k === 'related') answer = await retrieval.related(paths[r.i]!, 5);
              else answer = view.history?.listTrash() ?? [];
            } catch (err) {
              // A hidden note or folder reads as missing: the same error a missing one gets.
              expect(isDomainError(err)).toBe(true);
              const code = (err as { code: string }).code;
              expect(['NOTE_NOT_FOUND', 'FOLDER_NOT_FOUND']).toContain(code);
              answer = (err as Error).message;
              if (r.k === 'get' || r.k === 'related') {
                // Only a hidden path is refused; it is named only as the caller gave it.
                expect(hidden).toContain(paths[r.i]);
                continue;
              }
            }
            // Every path the answer names (path, from, and any string in a path-like field).
            const named = pathsIn(answer);
            for (const h of hidden) expect(named, `${r.k} names hidden ${h}`).not.toContain(h);
            if (r.k === 'list') {
              expect((answer as { path: string }[]).map((n) => n.path)).toEqual([...shown].sort());
            }
            if (r.k === 'tags') {
              const total = (answer as { count: number }[]).reduce((a, t) => a + t.count, 0);
              expect(total).toBe(shown.length);
            }
          }
          // Links from inside to outside read as unresolved.
          for (const s of shown) {
            const n = await view.get(s);
            for (const l of n.links) if (l.path !== null) expect(inScope(scope, l.path)).toBe(true);
            for (const b of n.backlinks) expect(inScope(scope, b.path)).toBe(true);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes need notes:write and a path inside the folders', async () => {
    const notes = createNoteService({
      store: memoryNoteStore({ files: { 'Work/a.md': '# a', 'Home/b.md': '# b' } }),
      clock,
    });
    await notes.load();
    const ro = scopedNotes(notes, {
      id: 'r',
      method: 'api-key',
      scope: { capabilities: ['notes:read'], folders: ['Work/'] },
    });
    await expect(ro.create('Work/new.md', 'x')).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('missing capability notes:write'),
    });
    const rw = scopedNotes(notes, {
      id: 'w',
      method: 'api-key',
      scope: { capabilities: ['notes:read', 'notes:write'], folders: ['Work/'] },
    });
    expect((await rw.create('Work/new.md', 'x')).path).toBe('Work/new.md');
    const outside = { code: 'FORBIDDEN', message: expect.stringContaining("outside this key's folders") };
    await expect(rw.create('Home/new.md', 'x')).rejects.toMatchObject(outside);
    await expect(rw.move('Work/a.md', 'Home/a.md')).rejects.toMatchObject(outside);
    await expect(rw.update('Home/b.md', { content: 'y' })).rejects.toMatchObject(outside);
    await expect(rw.remove('Home/b.md')).rejects.toMatchObject(outside);
    await expect(rw.create('Work/../Home/c.md', 'x')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(rw.get('Home/b.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    expect(notes.list().items.map((n) => n.path)).toEqual(['Home/b.md', 'Work/a.md', 'Work/new.md']);
  });
});

describe('the change feed as a folder key sees it', () => {
  const scope: KeyScope = { capabilities: ['notes:read'], folders: ['Work/'] };
  const ev = (type: any, path: string, from?: string) => ({
    id: 7,
    type,
    data: { path, external: false, ...(from ? { from } : {}) },
  });
  it('hides events outside, and a move across the border reads as a delete or a create', () => {
    expect(scopedFeedEvent(scope, ev('note.updated', 'Work/a.md'))).toEqual(ev('note.updated', 'Work/a.md'));
    expect(scopedFeedEvent(scope, ev('note.updated', 'Home/a.md'))).toBeNull();
    expect(scopedFeedEvent(scope, ev('note.moved', 'Work/b.md', 'Work/a.md'))?.type).toBe('note.moved');
    expect(scopedFeedEvent(scope, ev('note.moved', 'Home/a.md', 'Work/a.md'))).toEqual(
      ev('note.deleted', 'Work/a.md'),
    );
    expect(scopedFeedEvent(scope, ev('note.moved', 'Work/a.md', 'Home/a.md'))).toEqual(
      ev('note.created', 'Work/a.md'),
    );
    expect(scopedFeedEvent(scope, ev('note.moved', 'Home/b.md', 'Home/a.md'))).toBeNull();
    expect(scopedFeedEvent(undefined, ev('note.updated', 'Home/a.md'))).not.toBeNull();
  });

  it('a note moved out of the folders leaves every view', async () => {
    const notes = createNoteService({
      store: memoryNoteStore({ files: { 'Work/a.md': '# a [[b]]', 'Work/b.md': '# b' } }),
      clock,
    });
    await notes.load();
    const view = scopedNotes(notes, { id: 'k', method: 'api-key', scope });
    expect(view.list().items.map((n) => n.path)).toEqual(['Work/a.md', 'Work/b.md']);
    await notes.move('Work/b.md', 'Home/b.md');
    expect(view.list().items.map((n) => n.path)).toEqual(['Work/a.md']);
    expect(JSON.stringify(view.tree(''))).not.toContain('Home');
    await expect(view.get('Home/b.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    const a = await view.get('Work/a.md');
    expect(a.links.every((l) => l.path === null)).toBe(true);
  });
});
