/**
 * Miniflare (workerd with local R2, KV and Durable Objects) from the on-demand `runtimes` group
 * (deploy/shared/on-demand): installed on first use, not by `npm ci`. Its types are not in
 * node_modules, so the few calls the tests make are typed here.
 */
import { importOnDemand } from '../../deploy/shared/on-demand/index.ts';

/** The part of a Miniflare instance the tests and benchmarks use. */
export interface MiniflareInstance {
  /** Resolves to the URL the Worker answers on. */
  readonly ready: Promise<URL>;
  dispose(): Promise<void>;
  getR2Bucket(name: string): Promise<unknown>;
  getKVNamespace(name: string): Promise<unknown>;
}

/** Miniflare's options as the tests pass them (see miniflare's own docs for the full set). */
export type MiniflareOptions = Record<string, unknown>;

/** The Miniflare class; the first call installs the `runtimes` group (slow once). */
export async function loadMiniflare(): Promise<new (opts: MiniflareOptions) => MiniflareInstance> {
  const mod = await importOnDemand<{ Miniflare?: new (opts: MiniflareOptions) => MiniflareInstance }>(
    'runtimes',
    'miniflare',
  );
  if (!mod.Miniflare) throw new Error('the miniflare package exports no Miniflare class');
  return mod.Miniflare;
}
