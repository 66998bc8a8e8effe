/**
 * Live editors' credentials checked again while they are in a room: each ticket keeps a way to
 * authenticate its credential anew (`EditorInfo.recheck`), and an editor whose principal no longer
 * allows what it joined for is sent away (closed: revoked, 4401) to join again as it now may.
 */
import { visible } from '../auth/access.ts';
import { hasCapability, inWriteScope } from '../auth/scope.ts';
import type { Principal, StateStore } from '../ports.ts';
import type { LiveRoom } from './room.ts';

/**
 * Whether a principal (as of now) may still be in the room of `path` as it joined: seeing the
 * note, and writing it when it joined to write. Less than that, and it is sent away to join again.
 */
export function stillAllowed(p: Principal | null, path: string, readOnly: boolean): boolean {
  if (!p || !visible(p, path) || !hasCapability(p.scope, 'notes:read')) return false;
  return readOnly || (hasCapability(p.scope, 'notes:write') && inWriteScope(p.scope, path));
}

/**
 * The check of every editor of `rooms`, every `everyMs`, one round at a time. Call the result
 * whenever rooms open or close: the timer runs only while there are rooms (a core made in a test
 * leaves none behind); `stop` ends it. `now` checks at once (a credential just changed here): a
 * round already running is followed by another, so a change made during it is not missed.
 */
export function credentialWatch(rooms: Map<string, LiveRoom>, everyMs: number) {
  let timer: ReturnType<typeof setInterval> | undefined;
  let checking = false;
  let again = false;
  const round = async () => {
    for (const room of [...rooms.values()])
      for (const [peer, ed] of room.editorsNow()) {
        if (!ed.recheck) continue;
        const p = await ed.recheck().catch(() => null);
        if (!stillAllowed(p, room.path, ed.readOnly)) await room.evict(peer);
      }
  };
  const tick = (): void => {
    // A round slower than the interval is not overlapped by the next.
    if (checking) return;
    checking = true;
    void round()
      .catch(() => {})
      .finally(() => {
        checking = false;
        if (again) {
          again = false;
          tick();
        }
      });
  };
  const now = () => {
    if (rooms.size === 0) return;
    if (checking) again = true;
    else tick();
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  return Object.assign(
    () => {
      if (rooms.size > 0 && timer === undefined) {
        timer = setInterval(tick, everyMs);
        (timer as { unref?: () => void }).unref?.();
      } else if (rooms.size === 0) stop();
    },
    { stop, now },
  );
}

/**
 * `state` whose every completed `put` and `remove` is followed by `changed()`: the keys, people,
 * sessions and shares kept there are what live editors' credentials are checked against, so a
 * change to them asks for a check at once (`recheckNow`).
 */
export function withChangeSignal(state: StateStore, changed: () => void): StateStore {
  // The services take their new state in memory only once the write has returned (after their
  // await): the signal waits for the next turn, so the check sees what was written.
  const signal = () => {
    setTimeout(changed, 0);
  };
  // Only what the credentials' services use (get, put, remove): the optional bulk methods stay off.
  return {
    get: (key) => state.get(key),
    async put(key, value) {
      await state.put(key, value);
      signal();
    },
    async remove(key) {
      await state.remove(key);
      signal();
    },
  };
}
