import fc from 'fast-check';
import { hostilePath, noteText } from './arbitraries.ts';
import type { RawRequest } from './raw-http.ts';

/** What the generator may use: the real key (to pass auth) and serverId (to reach the server). */
export interface FuzzKnowledge {
  apiKey: string;
  serverId: string;
  notes: string[];
  /** Keys of other scopes (read-only, folder-limited, write-only, ...) minted before the run. */
  keys?: string[];
  /** Real version ids of the seeded notes, and real trash ids. */
  versions?: string[];
  trash?: string[];
  /** Attachments in the vault (encoded, as in a URL). */
  files?: string[];
  /** A registered OAuth client, and the redirect URI it registered. */
  clientId?: string;
  redirectUri?: string;
  /** Publications made before the run (their ids): one open, one behind a password. */
  publications?: string[];
}

/** Malformed percent-encodings, for ids and parameters decoded with decodeURIComponent. */
const BAD_PERCENT = [
  '%',
  '%E0%A4%A',
  '%ff',
  '%fe%ff',
  '%C0',
  '%e2%82',
  '%zz',
  'a%',
  '%%',
  '%u0041',
  '%F0%9F%98',
];

/** A version or trash id: real ones, malformed percent-encodings, junk. */
const idParam = (real: string[] | undefined) =>
  fc.oneof(
    { weight: 3, arbitrary: real?.length ? fc.constantFrom(...real) : fc.constant('0') },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_PERCENT) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(real?.length ? fc.constantFrom(...real) : fc.constant('1'), fc.constantFrom(...BAD_PERCENT))
        .map(([a, b]) => a + b),
    },
    { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~%-]{0,30}$/) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('..', '..%2F..', '%2e%2e', '__proto__', 'constructor', '-1', '9'.repeat(30)),
    },
  );

const enc = new TextEncoder();
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'get', 'PROPFIND', 'X'];

/** Note paths the server accepts: ASCII and non-ASCII names in a few folders. */
const goodPath = fc
  .tuple(
    fc.array(fc.constantFrom('notes', 'projects', 'daily', 'Été', '日記', 'a b'), { maxLength: 2 }),
    fc.oneof(fc.stringMatching(/^[a-z][a-z0-9 -]{0,12}$/), fc.constantFrom('plan', 'Ünïcode', '🙂', 'x')),
  )
  .map(([dirs, name]) => [...dirs, `${name.trim() || 'n'}.md`].join('/'));

/** A path parameter: raw hostile text, encoded once or twice, or percent junk. */
const param = (notes: string[]) =>
  fc.oneof(
    fc.constantFrom(...notes),
    goodPath.map((p) => encodeURIComponent(p)),
    hostilePath.map((p) => encodeURIComponent(p)),
    hostilePath.map((p) => encodeURIComponent(encodeURIComponent(p))),
    hostilePath.map((p) =>
      p.replace(/[\s\u0000-\u001f\u007f#?]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
    ),
    fc.constantFrom(
      '%',
      '%Z',
      '%zz',
      '%C0%AF',
      '%00',
      '%ff%fe',
      '..%2F..%2Fsentinel.txt',
      '%2e%2e/%2e%2e/x.md',
      '..;/x',
      'a.md%00.txt',
    ),
    fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@/-]{0,40}$/),
    // raw non-ASCII and a long one
    fc.string({ unit: 'grapheme', maxLength: 12 }).map((x) => x.replace(/[\s\u0000-\u001f\u007f#?]/g, '_')),
    fc.constant('a'.repeat(5000)),
  );

const query = fc.oneof(
  fc.constant(''),
  fc.stringMatching(/^[A-Za-z0-9%&=+._-]{0,40}$/).map((q) => `?${q}`),
  fc
    .tuple(fc.string({ maxLength: 20 }), fc.integer({ min: -5, max: 500 }))
    .map(([q, n]) => `?q=${encodeURIComponent(q)}&limit=${n}`),
);

/** The change feed in both forms: `after`/`wait` (long poll with Accept: application/json) or a stream. */
const eventsTarget = fc
  .tuple(
    fc.option(fc.oneof(fc.nat(100), fc.constantFrom('-1', 'x', '1e3', '99999999999999999999', '')), {
      nil: undefined,
    }),
    fc.option(fc.oneof(fc.constantFrom(0, 0, 0, 1), fc.constantFrom('-1', 'x', '100000')), {
      nil: undefined,
    }),
  )
  .map(([after, wait]) => {
    const q = [after === undefined ? '' : `after=${after}`, wait === undefined ? '' : `wait=${wait}`]
      .filter(Boolean)
      .join('&');
    return `/api/v1/events${q ? `?${q}` : ''}`;
  });

/** Request targets on the note server. */
export function serverTarget(k: FuzzKnowledge) {
  const p = param(k.notes);
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom('/api/v1/notes/', '/api/v1/folders/tree/'), p, query)
        .map((x) => x.join('')),
    },
    { weight: 2, arbitrary: p.map((x) => `/api/v1/notes/${x}/move`) },
    { weight: 3, arbitrary: fc.tuple(p, query).map(([x, q]) => `/api/v1/files/${x}${q}`) },
    { weight: 1, arbitrary: p.map((x) => `/api/v1/files/${x}/move`) },
    { weight: 2, arbitrary: eventsTarget },
    { weight: 2, arbitrary: p.map((x) => `/api/v1/auth/keys/${x}`) },
    { weight: 1, arbitrary: p.map((x) => `/api/v1/channels/webhook/${x}`) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            '/api/v1/health',
            '/api/v1/system/setup',
            '/api/v1/system/info',
            '/api/v1/notes',
            '/api/v1/folders/tree',
            '/api/v1/folders',
            '/api/v1/search',
            '/api/v1/auth/verify',
            '/api/v1/auth/link',
            '/api/v1/auth/token',
            '/api/v1/auth/keys',
            '/api/v1/auth/pair-code/rotate',
            '/api/v1/agent/status',
            '/api/v1/agent/chat',
            '/api/v1/agent/tools',
            '/api/v1/security/audit',
            '/api/v1/security/config',
            '/api/v1/security/recommendations',
            '/api/v1/tags',
            '/api/v1/tags/x',
            '/api/v1/files',
            '/api/v1/files/tree',
            '/api/v1/files/attachment-path',
            '/api/v1/events',
            '/mcp',
            '/mcp/',
            '/api/v1/trash',
            '/api/v1/notes/a.md/versions',
            '/api/v1/notes/a.md/versions/%',
            '/api/v1/auth/oauth/grants',
            '/oauth/token',
            '/oauth/authorize',
            '/oauth/register',
            '/oauth/revoke',
            '/.well-known/oauth-authorization-server',
            '//api/v1/notes',
            '/api/v1/../../etc/passwd',
            '/api/v2/notes',
            '/',
            '*',
          ),
          query,
        )
        .map(([a, b]) => a + b),
    },
    { weight: 1, arbitrary: p.map((x) => `/${x}`) },
  );
}

/** Request targets on the relay: its own routes, and the server through `/r/:serverId`. */
export function relayTarget(k: FuzzKnowledge) {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '/api/v1/health',
        '/api/v1/relay/register',
        '/api/v1/relay/pull',
        '/api/v1/relay/respond',
        '/api/v1/relay/unregister',
        '/api/v1/pair/exchange',
        '/api/v1/pair',
        '/r',
        '/r/',
      ),
    },
    {
      weight: 6,
      arbitrary: serverTarget(k).map((t) => `/r/${k.serverId}${t.startsWith('/') ? t : `/${t}`}`),
    },
    { weight: 2, arbitrary: fc.tuple(param(k.notes), serverTarget(k)).map(([id, t]) => `/r/${id}${t}`) },
  );
}

const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,60}$/).map((s) => s.trim()),
  // obs-text: bytes above 0x7f (sent as UTF-8, read by Node as latin1)
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\u0000-\u001f\u007f]/g, '').trim()),
  fc.constant('x'.repeat(6000)),
);

/** Headers, sometimes with the real key so protected routes are reached. */
function headers(k: FuzzKnowledge) {
  return fc
    .record(
      {
        key: fc.oneof(
          { weight: 8, arbitrary: fc.constant(k.apiKey) },
          // Keys of other scopes: read-only, folder-limited, write-only (the guards' other answers).
          { weight: 6, arbitrary: fc.constantFrom(...(k.keys?.length ? k.keys : [k.apiKey])) },
          { weight: 1, arbitrary: fc.constant('') },
          { weight: 1, arbitrary: headerValue },
          { weight: 1, arbitrary: fc.constant(`quire_sk_${'A'.repeat(43)}`) },
          { weight: 1, arbitrary: fc.constant('x'.repeat(3000)) },
        ),
        type: fc.constantFrom(
          'application/json',
          'application/json; charset=utf-16',
          'text/plain',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          '',
          '*/*; q=0.1; ===',
        ),
        extra: fc.array(
          fc.oneof(
            fc.constantFrom<[string, string]>(
              ['Authorization', 'Bearer not.a.jwt'],
              ['Authorization', 'Basic Zm9vOmJhcg=='],
              ['Content-Encoding', 'gzip'],
              ['Accept-Encoding', 'gzip, br'],
              ['Origin', 'http://localhost:5173'],
              ['Origin', 'https://evil.example'],
              ['Origin', 'null'],
              ['If-Match', '"nope"'],
              ['If-Match', '*'],
              ['If-None-Match', 'W/"x"'],
              ['X-Forwarded-For', '1.2.3.4, 5.6.7.8'],
              ['X-Forwarded-Host', 'evil.example'],
              ['X-Forwarded-Proto', 'gopher'],
              ['X-Request-Id', 'id-from-client'],
              ['Access-Control-Request-Method', 'DELETE'],
              ['Range', 'bytes=0-10'],
              ['Range', 'bytes=5-'],
              ['Range', 'bytes=-3'],
              ['Range', 'bytes=10-5'],
              ['Range', 'bytes=0-0,2-3'],
              ['Range', 'bytes=x'],
              ['Range', 'bytes=99999999999999999999-'],
              ['If-Range', '"nope"'],
              ['Accept', 'application/json, text/event-stream'],
              ['Accept', 'application/json, text/event-stream'],
              ['Accept', 'application/json'],
              ['Accept', 'application/json'],
              ['Accept', 'text/event-stream'],
              ['Last-Event-ID', '0'],
              ['Last-Event-ID', '3'],
              ['Last-Event-ID', '-1'],
              ['Last-Event-ID', '99999999999999999999'],
              ['Mcp-Session-Id', 'x'],
              ['Mcp-Protocol-Version', '2025-03-26'],
              ['Expect', '100-continue'],
              ['Cookie', 'a=b; c'],
              ['!#$%&*+.^_`|~', 'token-name'],
              ['Authorization', 'Bearer quire_at_e30.e30.x'],
              ['Authorization', `Bearer quire_at_${'A'.repeat(2000)}`],
              ['Authorization', 'Bearer quire_rt_x.y'],
              ['Accept', 'text/event-stream'],
              ['Accept', 'application/json;q=0, text/event-stream;q=1'],
              ['Range', `bytes=${'0-1,'.repeat(200)}2-3`],
              ['Range', 'bytes=0-18446744073709551616'],
              ['Content-Range', 'bytes 0-1/2'],
              ['If-Match', `"${'f'.repeat(64)}"`],
              ['X-Service-Key', 'second-key-header'],
              ['Host', 'evil.example'],
              ['X-Forwarded-Host', 'evil.example:443/oauth'],
              ['Last-Event-ID', '1e3'],
              ['Last-Event-ID', '%ff'],
              ['Mcp-Protocol-Version', 'x'.repeat(500)],
              ['Accept-Language', `${'en,'.repeat(2000)}en`],
            ),
            fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), headerValue),
          ),
          { maxLength: 5 },
        ),
      },
      { requiredKeys: ['key', 'extra'] },
    )
    .map(({ key, type, extra }) => {
      const h: [string, string][] = [];
      if (key !== '') h.push(['X-Service-Key', key]);
      if (type !== undefined) h.push(['Content-Type', type]);
      return [...h, ...extra];
    });
}

const TOOLS = [
  'search_notes',
  'list_notes',
  'read_note',
  'get_backlinks',
  'list_tags',
  'create_note',
  'update_note',
  'patch_note',
  'move_note',
  'delete_note',
  'list_versions',
  'restore_version',
  'list_trash',
  'restore_from_trash',
];

/** A section PATCH: real operations and targets, and hostile ones. */
const patchBody = fc.record(
  {
    operation: fc.constantFrom('append', 'prepend', 'replace', 'replace', 'delete', ''),
    target: fc.oneof(
      fc.record({
        type: fc.constant('heading'),
        heading: fc.oneof(fc.constantFrom('A', 'C', 'A::B'), fc.string()),
      }),
      fc.record({ type: fc.constant('block'), id: fc.oneof(fc.constantFrom('x', 'abc-1'), fc.string()) }),
      fc.record({
        type: fc.constant('frontmatter'),
        key: fc.oneof(fc.constantFrom('title', 'tags', '__proto__', 'constructor', 'a.b'), fc.string()),
      }),
      fc.record({ type: fc.constant('document') }),
      fc.jsonValue(),
    ),
    content: fc.oneof(noteText, fc.jsonValue(), fc.constant('x'.repeat(70_000))),
  },
  { requiredKeys: [] },
);

/** A JSON-RPC message to /mcp: real methods and tools with hostile arguments, and junk shapes. */
function rpcMessage(anyPath: fc.Arbitrary<string>, ids: string[]) {
  const args = fc.oneof(
    fc.record(
      {
        path: anyPath,
        to: anyPath,
        content: fc.oneof(noteText, fc.jsonValue()),
        query: fc.string({ maxLength: 30 }),
        limit: fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.jsonValue()),
        cursor: fc.string({ maxLength: 10 }),
        folder: anyPath,
        operation: fc.constantFrom('append', 'prepend', 'replace', 'x'),
        target: patchBody.map((b) => b.target),
        ifMatch: fc.constantFrom('"nope"', '*', ''),
        updateLinks: fc.boolean(),
        id: fc.oneof(fc.constantFrom(...ids, ...BAD_PERCENT), fc.string({ maxLength: 30 })),
        mode: fc.constantFrom('lexical', 'semantic', 'hybrid', 'x'),
      },
      { requiredKeys: [] },
    ),
    fc.jsonValue(),
  );
  const params = fc.oneof(
    fc.record(
      {
        name: fc.oneof(
          fc.constantFrom(...TOOLS),
          fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'),
          fc.string({ maxLength: 20 }),
        ),
        arguments: args,
      },
      { requiredKeys: [] },
    ),
    fc.record({
      uri: fc.oneof(
        anyPath.map((p) => `quire://note/${p}`),
        fc.string(),
      ),
      cursor: fc.string(),
    }),
    fc.record({
      protocolVersion: fc.constantFrom('2025-03-26', '2024-11-05', 'x'),
      capabilities: fc.jsonValue(),
      clientInfo: fc.record({ name: fc.string(), version: fc.string() }),
    }),
    fc.jsonValue(),
  );
  return fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0', 2),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.jsonValue()),
      method: fc.oneof(
        fc.constantFrom(
          'initialize',
          'ping',
          'tools/list',
          'tools/call',
          'tools/call',
          'tools/call',
          'resources/list',
          'resources/read',
          'resources/templates/list',
          'notifications/initialized',
          'prompts/list',
          '__proto__',
        ),
        fc.string({ maxLength: 20 }),
      ),
      params,
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  );
}

/** A note path in a body: the seeded notes, good new paths, hostile ones. */
const anyPathOf = (k: FuzzKnowledge) =>
  fc.oneof(fc.constantFrom(...k.notes.map(decodeURIComponent)), goodPath, goodPath, hostilePath);
/** The version and trash ids the generators may use. */
const idsOf = (k: FuzzKnowledge) => [...(k.versions ?? []), ...(k.trash ?? [])];

/** Bodies: well-shaped JSON with hostile values, random JSON, broken JSON, bytes, too large. */
function body(k: FuzzKnowledge) {
  const json = (x: unknown) => enc.encode(JSON.stringify(x));
  const anyPath = anyPathOf(k);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 4, arbitrary: fc.record({ path: anyPath, content: noteText }).map(json) },
    {
      weight: 1,
      arbitrary: fc.record({ path: anyPath, content: noteText, frontmatter: fc.jsonValue() }).map(json),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ content: noteText, frontmatter: fc.option(fc.dictionary(fc.string(), fc.jsonValue())) })
        .map(json),
    },
    { weight: 1, arbitrary: fc.record({ path: anyPath, updateLinks: fc.boolean() }).map(json) },
    {
      weight: 2,
      arbitrary: fc
        .record({
          message: fc.oneof(
            noteText,
            fc.constantFrom(
              'create a note titled ../../x with text y',
              'list folder ..',
              'show backlinks of a',
            ),
          ),
          notePath: fc.option(anyPath, { nil: undefined }),
          channel: fc.option(fc.string(), { nil: undefined }),
        })
        .map(json),
    },
    { weight: 1, arbitrary: fc.record({ name: fc.string() }).map(json) },
    { weight: 4, arbitrary: rpcMessage(anyPath, idsOf(k)).map(json) },
    {
      weight: 2,
      arbitrary: fc.array(rpcMessage(anyPath, idsOf(k)), { maxLength: 40 }).map(json),
    },
    { weight: 3, arbitrary: patchBody.map(json) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 60, max: 5000 }),
          fc.constantFrom('frontmatter', 'content', 'params', 'arguments'),
        )
        .map(([n, key]) =>
          enc.encode(
            `{"path":"deep.md","jsonrpc":"2.0","id":1,"method":"tools/call","${key}":${'['.repeat(n)}1${']'.repeat(n)}}`,
          ),
        ),
    },
    { weight: 1, arbitrary: fc.record({ code: fc.string({ maxLength: 20 }) }).map(json) },
    { weight: 2, arbitrary: registration().map(json) },
    { weight: 2, arbitrary: oauthForm(k, false) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          serverId: fc.oneof(fc.constant(k.serverId), fc.string()),
          secret: fc.string({ minLength: 30, maxLength: 40 }),
          waitMs: fc.integer({ min: 0, max: 50 }),
          responses: fc.jsonValue(),
        })
        .map(json),
    },
    { weight: 2, arbitrary: fc.jsonValue().map(json) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => enc.encode(s)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{', '{"path":', '[]', 'null', '"x"', '{"path":"a.md","content":1}')
        .map((s) => enc.encode(s)),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 70_000, max: 200_000 })
        .map((n) => enc.encode(`{"path":"big.md","content":"${'x'.repeat(n)}"}`)),
    },
  );
}

/** Method and target of the server's real routes, with hostile parameters. */
export function serverRoute(k: FuzzKnowledge): fc.Arbitrary<[string, string]> {
  const p = param(k.notes);
  const line = (methods: string[], target: fc.Arbitrary<string>) =>
    fc.tuple(fc.constantFrom(...methods), target) as fc.Arbitrary<[string, string]>;
  return fc.oneof(
    line(['GET', 'POST'], fc.constant('/api/v1/notes')),
    line(
      ['GET', 'PUT', 'DELETE'],
      p.map((x) => `/api/v1/notes/${x}`),
    ),
    line(
      ['POST'],
      p.map((x) => `/api/v1/notes/${x}/move`),
    ),
    line(
      ['GET'],
      p.map((x) => `/api/v1/folders/tree/${x}`),
    ),
    line(
      ['GET'],
      query.map((q) => `/api/v1/search${q}`),
    ),
    line(
      ['POST'],
      fc.constantFrom('verify', 'link', 'token', 'keys', 'pair-code/rotate').map((x) => `/api/v1/auth/${x}`),
    ),
    line(['GET'], fc.constant('/api/v1/auth/keys')),
    line(
      ['DELETE'],
      p.map((x) => `/api/v1/auth/keys/${x}`),
    ),
    line(
      ['GET'],
      fc.constantFrom(
        '/api/v1/agent/status',
        '/api/v1/system/setup',
        '/api/v1/system/info',
        '/api/v1/health',
      ),
    ),
    line(['POST'], fc.constant('/api/v1/agent/chat')),
    line(['POST'], fc.constant('/mcp')),
    line(['POST'], fc.constant('/mcp')),
    line(
      ['PATCH'],
      p.map((x) => `/api/v1/notes/${x}`),
    ),
    line(
      ['GET', 'HEAD', 'PUT', 'DELETE'],
      fc.tuple(p, query).map(([x, q]) => `/api/v1/files/${x}${q}`),
    ),
    line(
      ['POST'],
      p.map((x) => `/api/v1/files/${x}/move`),
    ),
    line(
      ['GET'],
      fc.oneof(
        fc.constantFrom('/api/v1/files/tree', '/api/v1/tags', '/api/v1/tags?x=1'),
        p.map((x) => `/api/v1/files/tree/${x}`),
        p.map((x) => `/api/v1/files/attachment-path?note=${x}&name=${x}`),
      ),
    ),
    line(['GET'], eventsTarget),
    line(
      ['GET'],
      fc.constantFrom('audit', 'config', 'recommendations').map((x) => `/api/v1/security/${x}`),
    ),
    historyRoute(k),
    historyRoute(k),
    oauthRoute(k),
    oauthRoute(k),
    line(
      ['GET', 'GET', 'GET', 'HEAD', 'PUT', 'DELETE'],
      fc
        .tuple(fc.oneof(fc.constantFrom(...(k.files?.length ? k.files : ['x.png'])), p), query)
        .map(([x, q]) => `/api/v1/files/${x}${q}`),
    ),
    line(
      ['GET'],
      fc.oneof(eventsTarget, fc.constantFrom('/api/v1/tags', '/api/v1/tags/', '/api/v1/tags?limit=-1')),
    ),
    line(['POST'], fc.constant('/mcp')),
    publishedRoute(k),
    publishedRoute(k),
  );
}

/** Published pages (`/p/<id>/…`, anonymous) and the publications API. */
function publishedRoute(k: FuzzKnowledge): fc.Arbitrary<[string, string]> {
  const p = param(k.notes);
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(k.publications?.length ? k.publications : ['pub_x'])) },
    { weight: 1, arbitrary: p },
  );
  const below = fc.oneof(
    fc.constantFrom('', 'c.md', '_search?q=a', '_search?q=', '_unlock', '_files/0/x.png', '..%2Fa.md'),
    p,
    p.map((x) => `_search?q=${x}`),
    p.map((x) => `_files/${'a'.repeat(24)}/${x}`),
  );
  return fc.oneof(
    fc.tuple(
      fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PUT'),
      fc.tuple(id, below).map(([i, b]) => `/p/${i}/${b}`),
    ),
    fc.tuple(
      fc.constantFrom('GET', 'HEAD'),
      id.map((i) => `/p/${i}`),
    ),
    fc.tuple(fc.constantFrom('GET', 'POST'), fc.constant('/api/v1/publications')),
    fc.tuple(
      fc.constantFrom('GET', 'DELETE'),
      id.map((i) => `/api/v1/publications/${i}`),
    ),
  );
}

/** The history (versions list, get, diff, restore) and the trash (list, restore, purge). */
function historyRoute(k: FuzzKnowledge): fc.Arbitrary<[string, string]> {
  const p = param(k.notes);
  const note = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...k.notes) }, { weight: 1, arbitrary: p });
  const version = idParam(k.versions);
  const trash = idParam(k.trash);
  const diff = fc.oneof(
    fc.constant(''),
    fc.constant('?diff=current'),
    version.map((v) => `?diff=${v}`),
    fc.constantFrom('?diff=', '?diff=%', '?diff=%E0%A4%A', '?diff&diff=x'),
  );
  return fc.oneof(
    fc.tuple(
      fc.constant('GET'),
      note.map((n) => `/api/v1/notes/${n}/versions`),
    ),
    fc.tuple(
      fc.constantFrom('GET', 'GET', 'HEAD', 'DELETE'),
      fc.tuple(note, version, diff).map(([n, v, d]) => `/api/v1/notes/${n}/versions/${v}${d}`),
    ),
    fc.tuple(
      fc.constantFrom('POST', 'POST', 'GET'),
      fc.tuple(note, version).map(([n, v]) => `/api/v1/notes/${n}/versions/${v}/restore`),
    ),
    fc.tuple(fc.constantFrom('GET', 'POST', 'DELETE'), fc.constantFrom('/api/v1/trash', '/api/v1/trash/')),
    fc.tuple(
      fc.constantFrom('POST', 'POST', 'GET'),
      trash.map((t) => `/api/v1/trash/${t}/restore`),
    ),
    fc.tuple(
      fc.constantFrom('DELETE', 'GET', 'PUT'),
      trash.map((t) => `/api/v1/trash/${t}`),
    ),
  ) as fc.Arbitrary<[string, string]>;
}

/** OAuth: metadata, registration, the consent page and its form, token and revocation. */
function oauthRoute(k: FuzzKnowledge): fc.Arbitrary<[string, string]> {
  const value = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9._~-]{0,20}$/),
    fc.constantFrom(...BAD_PERCENT),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
    fc.constant('x'.repeat(3000)),
  );
  const authorizeQuery = fc
    .record(
      {
        response_type: fc.constantFrom('code', 'token', '', 'code%20token'),
        client_id: fc.oneof(fc.constant(k.clientId ?? 'x'), value),
        redirect_uri: fc.oneof(
          fc.constant(encodeURIComponent(k.redirectUri ?? 'http://127.0.0.1/cb')),
          fc.constantFrom(
            encodeURIComponent('https://evil.example/cb'),
            encodeURIComponent('javascript:alert(1)'),
            encodeURIComponent(`${k.redirectUri ?? ''}/../x`),
          ),
          value,
        ),
        code_challenge: fc.oneof(fc.constant('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), value),
        code_challenge_method: fc.constantFrom('S256', 'plain', ''),
        state: value,
        scope: fc.constantFrom('notes:read', 'notes:read%20notes:write', 'admin', '', '%'),
        resource: fc.constantFrom(encodeURIComponent('http://127.0.0.1/mcp'), 'x', '%ff'),
      },
      { requiredKeys: [] },
    )
    .map((r) =>
      Object.entries(r)
        .map(([a, b]) => `${a}=${b}`)
        .join('&'),
    );
  return fc.oneof(
    fc.tuple(
      fc.constantFrom('GET', 'GET', 'POST', 'HEAD'),
      fc.constantFrom(
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource/x',
      ),
    ),
    fc.tuple(
      fc.constantFrom('GET', 'GET', 'POST'),
      authorizeQuery.map((q) => `/oauth/authorize?${q}`),
    ),
    fc.tuple(
      fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT'),
      fc.constantFrom('/oauth/register', '/oauth/authorize', '/oauth/token', '/oauth/revoke'),
    ),
    fc.tuple(
      fc.constantFrom('GET', 'DELETE'),
      fc
        .oneof(
          fc.constant(''),
          value.map((x) => `/${x}`),
        )
        .map((x) => `/api/v1/auth/oauth/grants${x}`),
    ),
  ) as fc.Arbitrary<[string, string]>;
}

/** A form body for the OAuth endpoints: the real client and redirect, random codes and tokens. */
export function oauthForm(k: FuzzKnowledge, withKeys = true): fc.Arbitrary<Uint8Array> {
  const value = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9._~-]{0,60}$/),
    fc.constantFrom(...BAD_PERCENT),
    fc.string({ maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom('quire_rt_x.y', 'quire_rt_', 'quire_at_a.b.c', `${k.apiKey.slice(0, 12)}`),
  );
  return fc
    .record(
      {
        grant_type: fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', '', '%'),
        code: value,
        code_verifier: value,
        refresh_token: value,
        token: value,
        client_id: fc.oneof(fc.constant(k.clientId ?? 'x'), value),
        redirect_uri: fc.oneof(fc.constant(encodeURIComponent(k.redirectUri ?? '')), value),
        response_type: fc.constant('code'),
        code_challenge: fc.constant('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
        code_challenge_method: fc.constant('S256'),
        action: fc.constantFrom('approve', 'deny', ''),
        // The consent form's key field: a real key (a code is issued) or junk.
        // Real keys only where the form goes to OAuth: elsewhere it could be stored and read back.
        key: withKeys
          ? fc.oneof(fc.constant(k.apiKey), fc.constantFrom(...(k.keys?.length ? k.keys : [k.apiKey])), value)
          : value,
        capability: fc.constantFrom('notes:read', 'notes:write', 'admin', ''),
        folders: fc.constantFrom('folder/', '../', '', 'a,b\nc'),
        resource: fc.constantFrom(encodeURIComponent('http://127.0.0.1/mcp'), '%'),
      },
      { requiredKeys: [] },
    )
    .map((r) =>
      enc.encode(
        Object.entries(r)
          .map(([a, b]) => `${a}=${b}`)
          .join('&'),
      ),
    );
}

/** Client metadata for `POST /oauth/register`: good, hostile and malformed. */
function registration() {
  return fc.record(
    {
      redirect_uris: fc.oneof(
        fc.array(
          fc.constantFrom(
            'http://127.0.0.1:9/cb',
            'http://localhost/cb',
            'https://evil.example/cb',
            'javascript:alert(1)',
            'data:text/html,x',
            'myapp://cb',
            'not a url',
            '',
          ),
          { maxLength: 4 },
        ),
        fc.jsonValue(),
      ),
      client_name: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('<script>x</script>'), fc.jsonValue()),
      grant_types: fc.oneof(fc.constant(['authorization_code']), fc.array(fc.string({ maxLength: 20 }))),
      token_endpoint_auth_method: fc.constantFrom('none', 'client_secret_basic'),
      scope: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: [] },
  );
}

/** Mostly real routes; sometimes a random method on a random target from `target`. */
export function requestLine(
  routes: fc.Arbitrary<[string, string]>,
  target: fc.Arbitrary<string>,
): fc.Arbitrary<[string, string]> {
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') },
    { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
  );
  return fc.oneof({ weight: 7, arbitrary: routes }, { weight: 3, arbitrary: fc.tuple(method, target) });
}

/** A whole raw request for the request lines `line`. */
export function rawRequest(k: FuzzKnowledge, line: fc.Arbitrary<[string, string]>): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      line,
      headers: headers(k),
      body: body(k),
      chunked: fc.boolean(),
      shortLength: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      smuggle: fc.constantFrom(null, null, null, null, null, null, 'duplicate-length', 'length-and-chunked'),
      // Mostly a well-typed body for OAuth's endpoints (a form; JSON for registration), so the
      // requests get past the content-type check to the code, token and consent logic.
      oauth: fc.record({ typed: fc.nat(3).map((n) => n > 0), form: oauthForm(k), meta: registration() }),
      rpc: fc.oneof(
        rpcMessage(anyPathOf(k), idsOf(k)),
        fc.array(rpcMessage(anyPathOf(k), idsOf(k)), { maxLength: 8 }),
      ),
    })
    .map(({ line: [method, target], oauth, rpc, ...rest }) => {
      const req = { method, target, ...rest };
      if (oauth.typed && /^(\/r\/[^/]+)?\/mcp$/.test(target)) {
        // As MCP clients send it (JSON, and both types accepted), so it reaches the tools.
        const drop = new Set(['content-type', 'accept']);
        return {
          ...req,
          headers: [
            ...req.headers.filter(([h]) => !drop.has(h.toLowerCase())),
            ['Content-Type', 'application/json'],
            ['Accept', 'application/json, text/event-stream'],
          ] as [string, string][],
          body: enc.encode(JSON.stringify(rpc)),
        };
      }
      if (!oauth.typed || !/\/oauth\/(register|authorize|token|revoke)$/.test(target.split('?')[0]!))
        return req;
      const json = target.split('?')[0]!.endsWith('/register');
      const type = json ? 'application/json' : 'application/x-www-form-urlencoded';
      return {
        ...req,
        headers: [
          ...req.headers.filter(([h]) => h.toLowerCase() !== 'content-type'),
          ['Content-Type', type],
        ] as [string, string][],
        body: json ? enc.encode(JSON.stringify(oauth.meta)) : oauth.form,
      };
    });
}

/** Method and target on the relay: its own routes, and the server's routes through `/r/:serverId`. */
export function relayRoute(k: FuzzKnowledge): fc.Arbitrary<[string, string]> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.tuple(
        fc.constant('POST'),
        fc.constantFrom('register', 'pull', 'respond', 'unregister').map((x) => `/api/v1/relay/${x}`),
      ),
    },
    { weight: 2, arbitrary: fc.tuple(fc.constant('POST'), fc.constant('/api/v1/pair/exchange')) },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom('GET', 'OPTIONS'),
        fc.constantFrom('/api/v1/health', '/api/v1/pair/exchange'),
      ),
    },
    { weight: 6, arbitrary: serverRoute(k).map(([m, t]): [string, string] => [m, `/r/${k.serverId}${t}`]) },
  );
}
