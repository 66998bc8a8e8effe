/**
 * The Cloudflare Worker root (workerd): every request goes to one Durable Object so that one in-memory
 * index serves them all; it runs the alarm lifecycle, start.ts builds it, drained.ts reads up bodies.
 */
import type { AlarmStorage } from '../shared/lifecycle.ts';
import { startFailure } from '../shared/process.ts';
import { drained } from './drained.ts';
import { type Env, start } from './start.ts';

export default {
  fetch: (req: Request, env: Env) => env.VAULT.get(env.VAULT.idFromName('vault')).fetch(req),
};

/** Holds the app and its lifecycle while the object stays in memory. */
export class QuireVault {
  #quire?: ReturnType<typeof start>;
  constructor(
    private readonly state: { storage: AlarmStorage },
    private readonly env: Env,
  ) {}

  fetch = (req: Request): Promise<Response> => drained(req, (r) => this.#answer(r));

  async #answer(req: Request): Promise<Response> {
    this.#quire ??= start(this.env, this.state.storage, new URL(req.url));
    const quire = await this.#quire.catch((err: unknown) => startFailure(err));
    if ('response' in quire) {
      // A storage hiccup is retried by the next request; a bad variable answers until it is fixed.
      if (quire.retry) this.#quire = undefined;
      return quire.response;
    }
    const res = await quire.app.fetch(req);
    await quire.lifecycle.afterRequest(req);
    return res;
  }

  async alarm(): Promise<void> {
    await (await this.#quire)?.lifecycle.alarm();
  }
}
