/**
 * The consent page of the OAuth routes (routes/oauth.ts): its HTML, its Content-Security-Policy,
 * the capabilities it offers, and where the browser goes back to. No script on the page at all.
 */
import type { AuthorizeRequest } from '../../../core/auth/oauth.ts';
import { type Capability, READ_ONLY } from '../../../core/auth/scope.ts';

export const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
  );

/** Offered on the consent page; `agent` and `admin` are never granted to an MCP client. */
export const OFFERED: Capability[] = ['notes:read', 'files:read', 'notes:write', 'files:write'];

const LABEL: Record<string, string> = {
  'notes:read': 'Read notes',
  'files:read': 'Read attachments',
  'notes:write': 'Create, change and delete notes',
  'files:write': 'Upload and delete attachments',
};

const STYLE =
  'body{font:15px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#222}' +
  'fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0}label{display:block;margin:.3rem 0}' +
  'input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.4rem}' +
  '.err{color:#a00;font-weight:600}.muted{color:#666;font-size:13px}button{padding:.5rem 1rem;margin-right:.5rem}';

/** The consent page's policy: no script at all, its one inline style, forms to this server and the client's redirect. */
export function consentCsp(redirectUri: string): string {
  let target = '';
  try {
    const u = new URL(redirectUri);
    target = u.protocol === 'http:' || u.protocol === 'https:' ? ` ${u.origin}` : ` ${u.protocol}`;
  } catch {}
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `form-action 'self'${target}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function consentPage(req: AuthorizeRequest, params: Record<string, string>, error?: string): string {
  const name = req.client.clientName ?? 'An MCP client';
  let where = req.redirectUri;
  try {
    const u = new URL(req.redirectUri);
    where = u.host ? `${u.protocol}//${u.host}` : u.protocol;
  } catch {}
  // Read-only unless the owner ticks more: a write capability is never checked in advance, even
  // when the client asks for it (clients ask for every scope the metadata lists).
  const asked = req.requested.filter((cap) => READ_ONLY.includes(cap));
  const picked = asked.length > 0 ? asked : READ_ONLY;
  const hidden = Object.entries(params)
    .filter(([k]) => HIDDEN.includes(k))
    .map(([k, val]) => `<input type="hidden" name="${esc(k)}" value="${esc(val)}">`)
    .join('');
  const boxes = OFFERED.map(
    (cap) =>
      `<label><input type="checkbox" name="capability" value="${cap}"${picked.includes(cap) ? ' checked' : ''}> ${esc(LABEL[cap] ?? cap)} <span class="muted">(${cap})</span></label>`,
  ).join('');
  return page(
    'Allow access to Quire',
    `<h1>Allow access to your notes?</h1>
<p><strong>${esc(name)}</strong> <span class="muted">(the name the client gave itself)</span> asks to use this Quire server through MCP. After you approve, your browser returns to <strong>${esc(where)}</strong>.</p>
${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="">
${hidden}
<fieldset><legend>What it may do</legend>${boxes}
<label>Only these folders (optional, comma-separated, e.g. <code>Work/, Journal/</code>):<input type="text" name="folders" value="${esc(params.folders ?? '')}" autocomplete="off"></label>
</fieldset>
<label>Approve with one of your Quire keys (<code>quire_sk_…</code>); it is not stored or shown to the client:<input type="password" name="key" autocomplete="off" required></label>
<p class="muted">The client never sees this key: it gets short-lived tokens limited to what you pick, which end when you revoke the grant or this key.</p>
<p><button type="submit" name="action" value="approve">Approve</button><button type="submit" name="action" value="deny" formnovalidate>Deny</button></p>
</form>`,
  );
}

/** The authorization request parameters the consent form carries back. */
const HIDDEN = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'resource',
];

/** `redirect_uri` with the answer's parameters added (its own query kept). */
export function backTo(
  redirectUri: string,
  params: Record<string, string | undefined>,
  issuer: string,
): string {
  const u = new URL(redirectUri);
  for (const [k, val] of Object.entries(params)) if (val !== undefined) u.searchParams.set(k, val);
  u.searchParams.set('iss', issuer);
  return u.toString();
}
