/**
 * The server's credentials file (`credentials.json`) as one small state machine: load or create
 * it, and save every change atomically, under one mutex, before it takes effect. The operations
 * over it (keys, pairing codes, link) are in api-keys.ts and pairing.ts.
 */
import { type RandomBytes, secureRandom, toBase64Url } from '../crypto.ts';
import { createIdentity, serverIdOf } from '../identity.ts';
import { createMutex } from '../mutex.ts';
import type { Clock, Logger, StateStore } from '../ports.ts';
import { hashKey, newApiKey, newId, newPairCode } from './keys.ts';
import type { KeyScope } from './scope.ts';
import { type AuthState, type KeyRecord, parseAuthState } from './state.ts';

/** Name of the state file; it holds key hashes, never keys (but the first key until setup completes). */
export const AUTH_STATE_KEY = 'credentials.json';

export interface AuthServiceDeps {
  state: StateStore;
  clock: Clock;
  random?: RandomBytes;
  logger?: Logger;
  /** Lifetime of a pairing code (default 15 minutes). */
  pairCodeTtlMs?: number;
}

export class Credentials {
  readonly clock: Clock;
  readonly logger: Logger | undefined;
  readonly random: RandomBytes;
  readonly mutex = createMutex();
  readonly listeners = new Set<() => void>();
  /** Bumped by every saved change (revoke, mint, rotate...): caches of verified keys compare it. */
  generation = 0;
  private readonly store: StateStore;
  private readonly ttl: number;
  private s: AuthState | null = null;

  constructor(deps: AuthServiceDeps) {
    this.store = deps.state;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.random = deps.random ?? secureRandom;
    this.ttl = deps.pairCodeTtlMs ?? 15 * 60_000;
  }

  iso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  cur(): AuthState {
    if (!this.s) throw new Error('auth service used before init()');
    return this.s;
  }

  async save(next: AuthState): Promise<void> {
    await this.store.put(AUTH_STATE_KEY, JSON.stringify(next, null, 2));
    this.s = next;
    this.generation++;
  }

  freshCode(): AuthState['pairing'] {
    return { code: newPairCode(this.random), expiresAt: new Date(this.clock.now() + this.ttl).toISOString() };
  }

  /** An expired code: nothing redeems it, and after link nothing replaces it but a rotate. */
  retiredCode(): AuthState['pairing'] {
    return { code: newPairCode(this.random), expiresAt: new Date(this.clock.now()).toISOString() };
  }

  /** Tells the listeners the pairing code changed. */
  changedCode(): void {
    for (const fn of this.listeners) fn();
  }

  async newKeyRecord(
    name: string,
    kind: KeyRecord['kind'],
    scope?: KeyScope,
  ): Promise<{ apiKey: string; rec: KeyRecord }> {
    const apiKey = newApiKey(this.random);
    const rec: KeyRecord = {
      id: newId('key', this.random),
      name,
      kind,
      hash: await hashKey(apiKey),
      last4: apiKey.slice(-4),
      createdAt: this.iso(),
      lastUsedAt: null,
      ...(scope ? { scope } : {}),
    };
    return { apiKey, rec };
  }

  /**
   * Loads the state, or creates it on first boot. A damaged file throws (the caller stops the
   * start); it is never replaced, so no second key appears behind the operator's back.
   */
  init(): Promise<{ created: boolean }> {
    return this.mutex.run(async () => {
      const text = await this.store.get(AUTH_STATE_KEY);
      if (text !== null) {
        this.s = parseAuthState(text, `${AUTH_STATE_KEY} in DATA_DIR`);
        return { created: false };
      }
      const { apiKey, rec } = await this.newKeyRecord('first key', 'first');
      const identity = await createIdentity();
      await this.save({
        v: 1,
        serverId: (await serverIdOf(identity.publicKey)) as string,
        identity,
        createdAt: this.iso(),
        setupComplete: false,
        linkedAt: null,
        firstKeyPlain: apiKey,
        keys: [rec],
        relaySecret: toBase64Url(this.random(32)),
        pairing: this.freshCode(),
      });
      this.logger?.info('first boot: credentials created', { serverId: this.cur().serverId });
      return { created: true };
    });
  }
}
