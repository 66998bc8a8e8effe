/**
 * Opens the live session of a note over a WebSocket: a ticket by an ordinary call with the key,
 * then the socket at the server's `/api/v1/live`, the ticket shown as a subprotocol (a browser's
 * WebSocket cannot send the key header, and the key never goes into a URL).
 */
import { changeText } from '../../../core/live/y-text.ts';
import { mergeText } from '../../../core/notes/merge/text.ts';
import { LiveClient, type LiveSocket } from './live-client.ts';
import { openLivePoll } from './live-poll.ts';
import type { Profile } from './profiles.ts';

export type { LiveSocket } from './live-client.ts';

/** The WebSocket address of `path` on the profile's server (`http` → `ws`, `https` → `wss`). */
export const liveUrl = (profile: Profile, path: string): string =>
  `${profile.serverUrl.replace(/^http/, 'ws')}${path}`;

/**
 * Joins the live session of `notePath`; resolves once the document holds the note's text. Through
 * the relay, which carries requests and answers rather than WebSockets, over plain requests.
 */
export async function openLiveSocket(
  profile: Profile,
  ticket: (path: string) => Promise<{ ticket: string; url: string }>,
  notePath: string,
  user: (name: string) => { name: string; color: string; colorLight?: string },
): Promise<LiveSocket> {
  const t = await ticket(notePath);
  if (profile.mode === 'relay') return openLivePoll(profile, t.ticket, user);
  const socket = new WebSocket(liveUrl(profile, t.url), ['quire-live', `quire-live.ticket.${t.ticket}`]);
  socket.binaryType = 'arraybuffer';
  const client = new LiveClient((d) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(d);
  });
  const live: LiveSocket = { client, close: () => socket.close(1000, 'done') };
  socket.addEventListener('message', (e) => {
    client.receive(typeof e.data === 'string' ? e.data : new Uint8Array(e.data as ArrayBuffer));
  });
  return new Promise<LiveSocket>((resolve, reject) => {
    let settled = false;
    socket.addEventListener('open', () => {
      client.onNotice = (n) => {
        if (n.type === 'hello') client.setUser(user(n.name));
      };
      client.start();
    });
    client.onSynced = () => {
      settled = true;
      resolve(live);
    };
    socket.addEventListener('close', (e) => {
      if (!settled) {
        settled = true;
        client.destroy();
        reject(new Error(`The live session could not open (${e.code}${e.reason ? ` ${e.reason}` : ''}).`));
        return;
      }
      live.onClosed?.(e.code, e.reason);
    });
  });
}

/**
 * After a reconnect (the server restarted, the network came back): what `from` typed that the
 * server never acknowledged is merged into `to`, a fresh session's document, as new typing of
 * ours: three-way from the text the server last held all of ours in, by lines and words, so a
 * change that reached the file after all lands once, not twice. Where it overlaps a change made
 * meanwhile the server's text stays (`overlaps` counts those places). Nothing to carry when every
 * change of ours was acknowledged.
 */
export function carryOver(from: LiveClient, to: LiveClient): { carried: boolean; overlaps: number } {
  if (!from.unsaved) return { carried: false, overlaps: 0 };
  const server = to.text.toString();
  const merged = mergeText(from.settledText, from.text.toString(), server);
  changeText(to.text, server, merged.text, null);
  return { carried: merged.text !== server, overlaps: merged.conflicts };
}
