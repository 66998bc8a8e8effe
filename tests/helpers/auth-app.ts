import { createApp } from '../../adapters/http/app.ts';
import type { RateLimits } from '../../adapters/http/types.ts';
import { memoryHistoryStore } from '../../adapters/store/memory-history-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { type AuthMode, createAuthenticator } from '../../core/auth/authenticator.ts';
import { createJwt } from '../../core/auth/jwt.ts';
import { createOAuthService } from '../../core/auth/oauth.ts';
import { createAuthService } from '../../core/auth/service.ts';
import { createHistory } from '../../core/history/history.ts';
import { createNoteService } from '../../core/notes/service.ts';
import { createPeopleService } from '../../core/people/service.ts';
import type { SsoProvider } from '../../core/people/sso.ts';
import type { Logger, StateStore } from '../../core/ports.ts';
import { createPublicationService } from '../../core/publish/service.ts';
import type { SetupConfig } from '../../core/setup.ts';
import { requester } from './app.ts';
import { silentLogger } from './logger.ts';

export const JWT_SECRET = 'test-secret-test-secret-test-secret-!!';

export interface AuthAppOptions {
  mode?: AuthMode;
  pairingMode?: SetupConfig['pairingMode'];
  state?: StateStore;
  logger?: Logger;
  now?: () => number;
  corsOrigins?: string[];
  rateLimits?: RateLimits | false;
  jwt?: { issuer?: string; audience?: string; ttlSeconds?: number; jwksUrl?: string; noSecret?: boolean };
  publicUrl?: string | null;
  trustProxy?: boolean;
  /** People, shares and sessions (core/people), with a cheap scrypt. */
  people?: boolean;
  /** Quire as the OAuth authorization server of /mcp (core/auth/oauth.ts), on the same clock. */
  oauth?: boolean | { accessTtlSeconds?: number };
  /** Single sign-on with this OpenID Connect provider (people only). */
  sso?: SsoProvider;
  /** Keep versions and a trash (in memory), for the history, trash and activity routes. */
  history?: boolean;
  /** Publishing (core/publish), with a cheap scrypt. */
  publications?: boolean;
}

/** A whole server app with auth, over an in-memory vault, and helpers to call it. */
export async function authApp(opts: AuthAppOptions = {}) {
  const now = opts.now ?? (() => Date.now());
  const clock = { now: () => now() };
  const logger = opts.logger ?? silentLogger;
  const state = opts.state ?? memoryStateStore();
  const history = opts.history ? createHistory({ store: memoryHistoryStore(), clock, logger }) : undefined;
  const notes = createNoteService({ store: memoryNoteStore({ clock }), clock, logger, history });
  await notes.load();
  const service = createAuthService({ state, clock, logger });
  await service.init();
  const mode = opts.mode ?? 'api-key';
  const { noSecret, ...jwtOpts } = opts.jwt ?? {};
  const jwt =
    mode === 'jwt' ? createJwt({ ...(noSecret ? {} : { secret: JWT_SECRET }), clock, ...jwtOpts }) : null;
  const pairingMode = opts.pairingMode ?? 'relay';
  const config: SetupConfig = {
    version: '9.9.9',
    authMode: mode,
    pairingMode,
    relayUrl: pairingMode === 'relay' ? 'http://relay.test:8787' : null,
    host: '127.0.0.1',
    port: 3000,
    cors: opts.corsOrigins ?? [],
    clientUrl: 'https://app.quire.test',
    testClientUrl: 'https://test.quire.test',
    localDevUiUrl: 'http://localhost:5173',
  };
  const oauth = opts.oauth
    ? createOAuthService({
        state,
        clock,
        auth: service,
        ...(typeof opts.oauth === 'object' ? opts.oauth : {}),
      })
    : undefined;
  await oauth?.init();
  const people = opts.people
    ? createPeopleService({ state, clock, scrypt: { N: 2 ** 4, r: 1, p: 1 } })
    : undefined;
  await people?.init();
  const publications = opts.publications
    ? createPublicationService({ state, clock, scrypt: { N: 2 ** 4, r: 1, p: 1 } })
    : undefined;
  await publications?.init();
  const app = createApp({
    people,
    publications,
    ...(opts.sso ? { sso: opts.sso } : {}),
    notes,
    oauth,
    version: '9.9.9',
    clock,
    logger,
    authenticator: createAuthenticator({ mode, auth: service, jwt, people }),
    setup: { service, jwt, config, publicUrl: opts.publicUrl ?? null },
    corsOrigins: opts.corsOrigins ?? [],
    rateLimits: opts.rateLimits ?? false,
    trustProxy: opts.trustProxy ?? false,
    socketAddress: () => '10.0.0.1',
  });
  const call = requester(app);
  const firstKey = service.firstKeyPlain()!;
  return {
    app,
    call,
    service,
    state,
    notes,
    oauth,
    people,
    publications,
    firstKey,
    key: (k: string) => ({ 'x-service-key': k }),
  };
}
