/**
 * The Cloudflare Worker root (workerd): every request goes to one Durable Object so that one
 * in-memory index serves them all; the object runs the alarm form of the shared lifecycle.
 * start.ts builds it from the bindings wrangler.toml names (docs/guide/runtimes.md).
 */
import type { AlarmStorage } from '../shared/lifecycle.ts';
import { startFailure } from '../shared/process.ts';
import { type Env, start } from './start.ts';

export type { Env };

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

  async fetch(req: Request): Promise<Response> {
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
