import { lookup } from 'node:dns/promises';
import type { ResolveHost } from '../../core/plugins/types.ts';

/** Every address `hostname` resolves to (A and AAAA, as the OS resolver sees them). */
export const nodeResolveHost: ResolveHost = async (hostname) => {
  const found = await lookup(hostname.replace(/^\[|\]$/g, ''), { all: true, verbatim: true });
  return found.map((a) => a.address);
};
