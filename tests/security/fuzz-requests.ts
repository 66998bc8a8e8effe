import fc from 'fast-check';
import { hostilePath, noteText } from './arbitraries.ts';
import type { RawRequest } from './raw-http.ts';

/** What the generator may use: the real key (to pass auth) and serverId (to reach the server). */
export interface FuzzKnowledge {
  apiKey: string;
  serverId: string;
  notes: string[];
}

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
          { weight: 12, arbitrary: fc.constant(k.apiKey) },
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
              ['Expect', '100-continue'],
              ['Cookie', 'a=b; c'],
              ['!#$%&*+.^_`|~', 'token-name'],
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

/** Bodies: well-shaped JSON with hostile values, random JSON, broken JSON, bytes, too large. */
function body(k: FuzzKnowledge) {
  const json = (x: unknown) => enc.encode(JSON.stringify(x));
  const anyPath = fc.oneof(
    fc.constantFrom(...k.notes.map(decodeURIComponent)),
    goodPath,
    goodPath,
    hostilePath,
  );
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
    { weight: 1, arbitrary: fc.record({ code: fc.string({ maxLength: 20 }) }).map(json) },
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
    line(
      ['GET'],
      fc.constantFrom('audit', 'config', 'recommendations').map((x) => `/api/v1/security/${x}`),
    ),
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
    })
    .map(({ line: [method, target], ...rest }) => ({ method, target, ...rest }));
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
