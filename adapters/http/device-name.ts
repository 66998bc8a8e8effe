/**
 * What a session was started on, for who-did-what (`Ann (Chrome on Linux)` in history, trash and
 * the feed): the browser and system a User-Agent names, read by bowser. Only its fixed names, or a
 * script's first product token, ever reach a page: the header itself is never shown.
 */
import Bowser from 'bowser';

/** `Chrome on Linux`, `Safari on iPhone`, `curl`; null when nothing usable is said. */
export function deviceName(userAgent: string | undefined): string | null {
  const ua = (userAgent ?? '').slice(0, 512).trim();
  if (!ua) return null;
  const r = Bowser.parse(ua);
  const on = r.platform.model ?? r.os.name;
  if (r.browser.name) return on ? `${r.browser.name} on ${on}` : r.browser.name;
  return /^[A-Za-z][\w.-]{0,30}/.exec(ua)?.[0] ?? null;
}
