import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { until } from '../helpers/wait.ts';
import { launchChromium, recordedPage } from './browser.ts';

let browser: Browser;
let server: LiveServer;
let callback: Server;
let callbackUrl: string;
const hits: URL[] = [];

beforeAll(async () => {
  // The MCP client's loopback redirect (what a desktop client listens on while you approve).
  callback = createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  [browser, server] = await Promise.all([launchChromium(), liveServer({ PAIRING_MODE: 'relay' })]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((r) => callback?.close(r));
});

/** Registers a client at `base` and returns an authorization URL with PKCE S256, and its verifier. */
async function authorizationUrl(base: string, state: string) {
  const reg = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [callbackUrl], client_name: 'Browser test client' }),
  });
  const { client_id } = (await reg.json()) as { client_id: string };
  const verifier = crypto.randomUUID() + crypto.randomUUID();
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const url = new URL(`${base}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: callbackUrl,
    code_challenge: Buffer.from(digest).toString('base64url'),
    code_challenge_method: 'S256',
    state,
    scope: 'notes:read files:read notes:write files:write',
  }).toString();
  return { url, client_id, verifier };
}

describe('the OAuth consent page in Chromium', () => {
  it('direct: the owner pastes a key and approves; the browser lands on the client with code and state', async () => {
    const { url, client_id, verifier } = await authorizationUrl(server.url, 'browser-state');
    const rec = await recordedPage(browser);
    await rec.page.goto(url.toString());
    await rec.page.getByRole('heading', { name: 'Allow access to your notes?' }).waitFor();
    // Read-only is what is checked, though the client asked for the write scopes too.
    expect(await rec.page.locator('input[value="notes:read"]').isChecked()).toBe(true);
    expect(await rec.page.locator('input[value="notes:write"]').isChecked()).toBe(false);
    await rec.page.locator('input[name="key"]').fill(server.firstKey);
    await rec.page.getByRole('button', { name: 'Approve' }).click();
    const hit = await until(
      'the condition',
      () => hits.find((h) => h.searchParams.get('state') === 'browser-state'),
      10_000,
    );
    const code = hit!.searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(rec.console.filter((l) => /Content Security Policy|pageerror/i.test(l))).toEqual([]);
    // The key never reached the client's side.
    expect(hits.some((h) => h.toString().includes(server.firstKey))).toBe(false);
    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id,
        redirect_uri: callbackUrl,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    expect(((await token.json()) as { scope: string }).scope).toBe('notes:read files:read');
    await rec.context.close();
  }, 60_000);

  it('through the relay the page is sandboxed without script but may submit its form, and lands on the redirect', async () => {
    const relayBase = `${server.relayUrl}/r/${(await server.setup()).serverId}`;
    const { url } = await authorizationUrl(relayBase, 'relay-state');
    const rec = await recordedPage(browser);
    const res = await rec.page.goto(url.toString());
    expect(res?.headers()['content-security-policy']).toContain('sandbox allow-forms');
    expect(res?.headers()['content-security-policy']).not.toContain('allow-scripts');
    await rec.page.getByRole('heading', { name: 'Allow access to your notes?' }).waitFor();
    await rec.page.locator('input[name="key"]').fill(server.firstKey);
    await rec.page.getByRole('button', { name: 'Approve' }).click();
    const hit = await until(
      'the condition',
      () => hits.find((h) => h.searchParams.get('state') === 'relay-state'),
      10_000,
    );
    expect(hit!.searchParams.get('code')).toBeTruthy();
    expect(rec.console.some((l) => /Blocked form submission/i.test(l))).toBe(false);
    expect(hits.some((h) => h.toString().includes(server.firstKey))).toBe(false);
    await rec.context.close();
  }, 60_000);
});
