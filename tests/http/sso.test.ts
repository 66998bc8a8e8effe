/**
 * Single sign-on against a real OpenID Connect provider (oidc-provider on loopback, its
 * development login pages driven over HTTP): a person links their identity through an invite,
 * signs in with it later, and is refused when not linked, disabled, or when the callback is
 * replayed, forged or comes back to another browser. The provider's redirects and forms are
 * followed as a browser would, with a cookie jar per browser.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcProvider } from '../../adapters/sso/oidc.ts';
import { authApp } from '../helpers/auth-app.ts';

const BASE = 'http://127.0.0.1:3000';
const CALLBACK = `${BASE}/api/v1/session/sso/callback`;
let server: Server;
let issuer: string;
let t: Awaited<ReturnType<typeof authApp>>;

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'quire',
        client_secret: 'a-client-secret-for-the-test-only',
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, name: id }) }),
    cookies: { keys: ['a-cookie-key-for-the-test-only'] },
    ttl: {
      Session: 600,
      Grant: 600,
      AccessToken: 600,
      IdToken: 600,
      Interaction: 600,
      AuthorizationCode: 60,
    },
  });
  server.on('request', provider.callback());
  t = await authApp({
    people: true,
    publicUrl: BASE,
    sso: oidcProvider({ issuer, clientId: 'quire', clientSecret: 'a-client-secret-for-the-test-only' }),
  });
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

/** One browser's cookies, by name (enough for one host each). */
type Jar = Map<string, string>;
const cookieHeader = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
function keep(jar: Jar, res: Response) {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const i = pair!.indexOf('=');
    const [k, v] = [pair!.slice(0, i).trim(), pair!.slice(i + 1)];
    if (/max-age=0/i.test(line) || v === '') jar.delete(k);
    else jar.set(k, v);
  }
}

/** The form fields of a page (hidden values, and `login`/`password` filled in as `login`). */
function formOf(html: string, login: string) {
  const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1];
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input([^>]*)>/g)) {
    const name = m[1]!.match(/name="([^"]+)"/)?.[1];
    if (!name) continue;
    const value = m[1]!.match(/value="([^"]*)"/)?.[1] ?? '';
    fields.set(name, name === 'login' ? login : name === 'password' ? 'any' : value);
  }
  return action ? { action, fields } : null;
}

/**
 * Follows the provider's pages from `url` as `login` would (signing in, consenting) until it sends
 * the browser back to Quire; returns that address.
 */
async function atProvider(url: string, login: string, jar: Jar = new Map()): Promise<string> {
  let next: { url: string; body?: URLSearchParams } = { url };
  for (let step = 0; step < 20; step++) {
    if (next.url.startsWith(BASE)) return next.url;
    const res = await fetch(next.url, {
      method: next.body ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: cookieHeader(jar),
        ...(next.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: next.body,
    });
    keep(jar, res);
    const location = res.headers.get('location');
    if (location) {
      next = { url: new URL(location, next.url).href };
      continue;
    }
    const form = formOf(await res.text(), login);
    expect(form, `a form at ${next.url} (${res.status})`).not.toBeNull();
    next = { url: new URL(form!.action, next.url).href, body: form!.fields };
  }
  throw new Error('the provider never sent the browser back');
}

/** Quire's answer to a request from a browser holding `jar`; the jar keeps what it sets. */
async function atQuire(jar: Jar, method: string, url: string, body?: unknown) {
  const res = await t.app.request(url.startsWith('http') ? url : `${BASE}${url}`, {
    method,
    headers: {
      cookie: cookieHeader(jar),
      origin: BASE,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  keep(jar, res);
  return res;
}

/** A whole sign-in (or enrolment, with `invite`) from a fresh browser; its jar and the callback's answer. */
async function signIn(login: string, invite?: string) {
  const jar: Jar = new Map();
  const begun = invite
    ? await atQuire(jar, 'POST', '/api/v1/invites/sso', { token: invite })
    : await atQuire(jar, 'POST', '/api/v1/session/sso', {});
  expect(begun.status).toBe(200);
  const { data } = (await begun.json()) as { data: { url: string; provider: string } };
  expect(data.url.startsWith(`${issuer}/`)).toBe(true);
  const back = await atProvider(data.url, login);
  const res = await atQuire(jar, 'GET', back);
  return { jar, res, back };
}

async function whoIs(jar: Jar): Promise<string | null> {
  const res = await atQuire(jar, 'GET', '/api/v1/session');
  return ((await res.json()) as { data: { person: { name: string } | null } }).data.person?.name ?? null;
}

async function invite(name: string): Promise<{ id: string; token: string }> {
  const owner = t.key(t.firstKey);
  const added = await t.call('POST', '/api/v1/people', { body: { name }, headers: owner });
  expect(added.status).toBe(201);
  const id = added.json.data.id as string;
  const inv = await t.call('POST', `/api/v1/people/${id}/invite`, { headers: owner });
  expect(inv.status, inv.text).toBeLessThan(300);
  const token = inv.json.data.token as string;
  return { id, token };
}

describe('single sign-on with an OpenID Connect provider', () => {
  it('the sign-in page learns that single sign-on is offered', async () => {
    const res = await atQuire(new Map(), 'GET', '/api/v1/session/sso');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { provider: string } }).data.provider).toBe(new URL(issuer).host);
  });

  it('an invite links the identity; later sign-ins with it are that person, others are refused', async () => {
    const { id, token } = await invite('Ada');
    const enrolled = await signIn('ada-at-provider', token);
    expect(enrolled.res.status).toBe(303);
    expect(enrolled.res.headers.get('location')).toBe('/sign-in?sso=1');
    expect(await whoIs(enrolled.jar)).toBe('Ada');
    const person = await t.call('GET', `/api/v1/people/${id}`, { headers: t.key(t.firstKey) });
    expect(person.json.data.signIn).toMatchObject({ sso: true, password: false });

    // The invite is spent: it cannot link a second identity.
    const again = await atQuire(new Map(), 'POST', '/api/v1/invites/sso', { token });
    expect(again.status).toBe(401);

    const later = await signIn('ada-at-provider');
    expect(later.res.headers.get('location')).toBe('/sign-in?sso=1');
    expect(await whoIs(later.jar)).toBe('Ada');

    // Someone the provider knows but nobody invited: no account is made.
    const stranger = await signIn('mallory');
    expect(stranger.res.status).toBe(303);
    expect(decodeURIComponent(stranger.res.headers.get('location')!)).toMatch(
      /^\/sign-in#sso-error=.*not linked to anyone here/,
    );
    expect(stranger.jar.has('quire_session')).toBe(false);
    expect(t.people!.list().map((p) => p.name)).not.toContain('mallory');
  });

  it('a disabled person cannot sign in with their identity', async () => {
    const { id, token } = await invite('Bo');
    expect((await signIn('bo-at-provider', token)).res.headers.get('location')).toBe('/sign-in?sso=1');
    const off = await t.call('PATCH', `/api/v1/people/${id}`, {
      body: { disabled: true },
      headers: t.key(t.firstKey),
    });
    expect(off.status, off.text).toBe(200);
    const refused = await signIn('bo-at-provider');
    expect(decodeURIComponent(refused.res.headers.get('location')!)).toMatch(/sso-error=/);
    expect(refused.jar.has('quire_session')).toBe(false);
  });

  it('a callback replayed, brought to another browser or with a forged state gives no session', async () => {
    const { token } = await invite('Cy');
    const jar: Jar = new Map();
    const begun = await atQuire(jar, 'POST', '/api/v1/invites/sso', { token });
    const { data } = (await begun.json()) as { data: { url: string } };
    const back = await atProvider(data.url, 'cy-at-provider');

    // Another browser (no attempt cookie) brings the code: refused, nothing linked.
    const elsewhere = await atQuire(new Map(), 'GET', back);
    expect(decodeURIComponent(elsewhere.headers.get('location')!)).toMatch(/sso-error=.*Start again/);

    // A forged state with the right cookie: refused, and the attempt is used up.
    const forged = new URL(back);
    forged.searchParams.set('state', 'not-the-state');
    const bad = await atQuire(new Map(jar), 'GET', forged.href);
    expect(decodeURIComponent(bad.headers.get('location')!)).toMatch(/sso-error=.*did not confirm/);
    const replay = await atQuire(jar, 'GET', back);
    expect(decodeURIComponent(replay.headers.get('location')!)).toMatch(/sso-error=.*Start again/);
    expect(jar.has('quire_session')).toBe(false);
  });

  it('an unknown invite is refused before the browser is sent anywhere', async () => {
    const res = await atQuire(new Map(), 'POST', '/api/v1/invites/sso', { token: 'inv_nothing' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_TOKEN');
  });
});
