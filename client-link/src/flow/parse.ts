/** Steps 1 and 3 of the link flow: read the link's parameters, and check what they resolve to. */

/** What a link asks for. */
export type LinkRequest =
  | { mode: 'direct'; serverUrl: string; apiKey: string }
  | { mode: 'relay'; relayCode: string; relayUrl: string | null };

/** Every query parameter the link flow reads; all of them are removed from the address bar. */
export const LINK_PARAMS = ['serverUrl', 'apiKey', 'relayCode', 'relayUrl'] as const;

/** A key: the `quire_sk_` prefix and at least 32 base64url characters. */
export const API_KEY_RE = /^quire_sk_[A-Za-z0-9_-]{32,256}$/;
/** A pairing code as people type it: letters, digits and dashes. */
const CODE_RE = /^[A-Za-z0-9][A-Za-z0-9 -]{3,62}[A-Za-z0-9]$/;

export class LinkProblem extends Error {
  override name = 'LinkProblem';
  constructor(
    readonly code: 'MISSING_PARAMS' | 'MALFORMED_PARAMS',
    message: string,
  ) {
    super(message);
  }
}

/** Step 1: the link's mode and values. Relay mode wins when a link carries both. */
export function parseLinkQuery(search: string): LinkRequest {
  const q = new URLSearchParams(search);
  const get = (k: string) => q.get(k)?.trim() || null;
  const relayCode = get('relayCode');
  if (relayCode) {
    if (!CODE_RE.test(relayCode))
      throw new LinkProblem('MALFORMED_PARAMS', 'The pairing code in this link is malformed.');
    return { mode: 'relay', relayCode, relayUrl: get('relayUrl') };
  }
  const serverUrl = get('serverUrl');
  const apiKey = get('apiKey');
  if (!serverUrl && !apiKey)
    throw new LinkProblem(
      'MISSING_PARAMS',
      'This link carries no server address and key, and no pairing code. Enter them below.',
    );
  if (!serverUrl) throw new LinkProblem('MISSING_PARAMS', 'This link has a key but no server address.');
  if (!apiKey) throw new LinkProblem('MISSING_PARAMS', 'This link has a server address but no API key.');
  return { mode: 'direct', serverUrl, apiKey };
}

/** Step 3: the resolved key must look like a key. Throws LinkProblem; never echoes the key. */
export function validateCredentials(serverUrl: string, apiKey: string): void {
  if (!serverUrl.trim()) throw new LinkProblem('MISSING_PARAMS', 'The server address is missing.');
  if (!API_KEY_RE.test(apiKey.trim()))
    throw new LinkProblem(
      'MALFORMED_PARAMS',
      'The API key is malformed: it should start with quire_sk_ followed by at least 32 characters.',
    );
}

/** `href` without the link parameters (what goes into `history.replaceState`). */
export function strippedUrl(href: string): string {
  const url = new URL(href);
  for (const k of LINK_PARAMS) url.searchParams.delete(k);
  return `${url.pathname}${url.search}${url.hash}`;
}
