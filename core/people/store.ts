/**
 * The people state as one small state machine: loaded once, every change saved atomically
 * (through the StateStore port: memory, fs or KV) under one mutex before it takes effect, and a
 * generation bumped with each, so a cache of verified sessions or keys is void at once.
 */
import * as v from 'valibot';
import { type RandomBytes, secureRandom } from '../crypto.ts';
import { parseJsonOr } from '../json.ts';
import { createMutex } from '../mutex.ts';
import type { Clock, StateStore } from '../ports.ts';
import { emptyPeopleState, PEOPLE_STATE_KEY, type PeopleState, PeopleStateSchema } from './types.ts';

export class PeopleStore {
  readonly mutex = createMutex();
  /** Bumped by every saved change: a person disabled, a share removed, a session ended. */
  generation = 0;
  private s: PeopleState | null = null;

  constructor(
    private readonly state: StateStore,
    readonly clock: Clock,
    readonly random: RandomBytes = secureRandom,
  ) {}

  iso(at = this.clock.now()): string {
    return new Date(at).toISOString();
  }

  /** Loads the state (empty when absent); a damaged file stops the start with one line. */
  async load(): Promise<void> {
    const text = await this.state.get(PEOPLE_STATE_KEY);
    if (text === null) {
      this.s = emptyPeopleState();
      return;
    }
    const where = PEOPLE_STATE_KEY;
    const data = parseJsonOr(text, () => new Error(`${where} is not valid JSON; restore it from a backup.`));
    const r = v.safeParse(PeopleStateSchema, data);
    if (!r.success)
      throw new Error(`${where} is damaged; restore it from a backup (it holds the people's sign-ins).`);
    this.s = r.output;
  }

  cur(): PeopleState {
    if (!this.s) throw new Error('people state not loaded: call init() first');
    return this.s;
  }

  /** Saves `next` atomically, then makes it current. */
  async save(next: PeopleState): Promise<void> {
    await this.state.put(PEOPLE_STATE_KEY, JSON.stringify(next));
    this.s = next;
    this.generation += 1;
  }

  /** Runs `fn` on the current state under the mutex and saves what it returns (null: no change). */
  change<T>(
    fn: (st: PeopleState) => { next: PeopleState; out: T } | null | Promise<{ next: PeopleState; out: T }>,
  ): Promise<T> {
    return this.mutex.run(async () => {
      const r = await fn(this.cur());
      if (r === null) return undefined as T;
      await this.save(r.next);
      return r.out;
    });
  }
}
