/**
 * The stage of the people tests in Chromium: a real server (open port, on `localhost` because
 * WebAuthn wants a domain) with a folder to share and a private one, Chromium, and the owner's
 * API calls by the first key.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';
import { ensureClientBuilt, launchChromium } from './browser.ts';

export interface PeopleStage {
  browser: Browser;
  server: LiveServer;
  /** The server's address on localhost. */
  base: string;
  /** The owner's call: the JSON answer of `method /api/v1<path>`. */
  owner(method: string, path: string, body?: unknown): Promise<any>;
  stop(): Promise<void>;
}

export async function peopleStage(env: Record<string, string> = {}): Promise<PeopleStage> {
  await ensureClientBuilt();
  const [browser, server] = await Promise.all([
    launchChromium(),
    liveServer({ PAIRING_MODE: 'open-port', ...env }),
  ]);
  const base = server.url.replace('127.0.0.1', 'localhost');
  const owner = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { 'x-service-key': server.firstKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as any;
  };
  await owner('POST', '/notes', { path: 'Team/plan.md', content: '# Team plan\n\nShared words.\n' });
  await owner('POST', '/notes', { path: 'Private/diary.md', content: '# zzdiaryzz\n\nNot for Ann.\n' });
  return {
    browser,
    server,
    base,
    owner,
    async stop() {
      await browser.close();
      await server.stop();
    },
  };
}

/**
 * A platform authenticator in Chromium (CDP WebAuthn) that says yes at once, with resident keys:
 * a passkey ceremony of `page` completes without a person. Its id, to read its credentials.
 */
export async function virtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}
