/**
 * Linked server profiles, kept in the browser's localStorage under one key (`quire.profiles.v1`):
 * several profiles, one active. A profile holds the key the client uses for that server; it
 * never leaves this storage except in the `X-Service-Key` header of calls to that server.
 */

export const PROFILES_KEY = 'quire.profiles.v1';

export interface Profile {
  /** `serverId` plus the address it is reached by (one server may be linked direct and via relay). */
  id: string;
  serverId: string;
  /** Normalized base address, e.g. `https://notes.example` or `http://127.0.0.1:8787/r/srv_x`. */
  serverUrl: string;
  apiKey: string;
  mode: 'direct' | 'relay';
  relayUrl: string | null;
  /** A label for the profile switcher (the host, and "via relay"). */
  name: string;
  linkedAt: string;
}

interface Stored {
  version: 1;
  active: string | null;
  profiles: Profile[];
}

/** What the profile store needs of `localStorage`. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const empty = (): Stored => ({ version: 1, active: null, profiles: [] });

function isProfile(p: unknown): p is Profile {
  const o = p as Profile;
  return (
    !!o &&
    typeof o.id === 'string' &&
    typeof o.serverId === 'string' &&
    typeof o.serverUrl === 'string' &&
    typeof o.apiKey === 'string'
  );
}

/** The profile store over `storage`. A damaged entry reads as "no profiles", never throws. */
export function profileStore(storage: KeyValueStorage) {
  const read = (): Stored => {
    try {
      const raw = storage.getItem(PROFILES_KEY);
      if (!raw) return empty();
      const parsed = JSON.parse(raw) as Stored;
      if (parsed?.version !== 1 || !Array.isArray(parsed.profiles)) return empty();
      const profiles = parsed.profiles.filter(isProfile);
      const active = profiles.some((p) => p.id === parsed.active) ? parsed.active : (profiles[0]?.id ?? null);
      return { version: 1, active, profiles };
    } catch {
      return empty();
    }
  };
  const write = (s: Stored) => storage.setItem(PROFILES_KEY, JSON.stringify(s));

  return {
    /** Every profile, in the order they were first linked. */
    list(): Profile[] {
      return read().profiles;
    },
    /** The active profile, or null. */
    active(): Profile | null {
      const s = read();
      return s.profiles.find((p) => p.id === s.active) ?? null;
    },
    /** Adds the profile (replacing one with the same id, keeping its place) and makes it active. */
    save(profile: Profile): void {
      const s = read();
      const at = s.profiles.findIndex((p) => p.id === profile.id);
      if (at >= 0) s.profiles[at] = profile;
      else s.profiles.push(profile);
      write({ ...s, active: profile.id });
    },
    /** Makes `id` active; false when there is no such profile. */
    activate(id: string): boolean {
      const s = read();
      if (!s.profiles.some((p) => p.id === id)) return false;
      write({ ...s, active: id });
      return true;
    },
    /** Removes `id` (its key with it); the first remaining profile becomes active. */
    forget(id: string): void {
      const s = read();
      const profiles = s.profiles.filter((p) => p.id !== id);
      write({ version: 1, profiles, active: s.active === id ? (profiles[0]?.id ?? null) : s.active });
    },
  };
}

export type ProfileStore = ReturnType<typeof profileStore>;

/** The id and label of a profile for `serverId` reached at `serverUrl`. */
export function profileIdentity(serverId: string, serverUrl: string, mode: 'direct' | 'relay') {
  const host = new URL(serverUrl).host;
  return { id: `${serverId}@${serverUrl}`, name: mode === 'relay' ? `${host} (via relay)` : host };
}
