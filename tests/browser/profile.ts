import type { BrowserContext } from 'playwright-core';
import { PROFILES_KEY, type Profile } from '../../client-link/src/flow/profiles.ts';

/** A direct profile: the server at `serverUrl`, linked with `apiKey` (id: `<serverId>@direct`). */
export const directProfile = (o: {
  serverId: string;
  serverUrl: string;
  apiKey: string;
  name: string;
  id?: string;
}): Profile => ({
  id: o.id ?? `${o.serverId}@direct`,
  serverId: o.serverId,
  serverUrl: o.serverUrl,
  apiKey: o.apiKey,
  mode: 'direct',
  relayUrl: null,
  name: o.name,
  linkedAt: new Date().toISOString(),
});

/** Stores `profile` as the one (and active) profile of every page `context` opens from now on. */
export async function linkWith(context: BrowserContext, profile: Profile): Promise<void> {
  await context.addInitScript(
    ([k, v]) => localStorage.setItem(k!, v!),
    [PROFILES_KEY, JSON.stringify({ version: 1, active: profile.id, profiles: [profile] })],
  );
}
