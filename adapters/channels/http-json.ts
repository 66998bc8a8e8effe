/** One JSON POST to a provider API, with errors that never carry the URL (it may hold a token). */

/** POSTs `body` as JSON; answers the parsed JSON of a 2xx, or throws an Error naming the status and the provider's own message. */
export async function postJson(
  fetchFn: typeof globalThis.fetch,
  what: string,
  url: string,
  body: unknown,
  opts: { headers?: Record<string, string>; signal?: AbortSignal; secrets?: string[] } = {},
): Promise<unknown> {
  const { headers = {}, signal, secrets = [] } = opts;
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } })?.cause?.code;
    throw new Error(`${what}: could not reach the API${cause ? ` (${cause})` : ''}; check the API base URL.`);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    let msg = `${what}: the API answered ${res.status}${describe(json)}.`;
    for (const s of secrets) if (s) msg = msg.split(s).join('[redacted]');
    throw new Error(msg);
  }
  return json;
}

/** The provider's own error text (Telegram `description`, Graph API `error.message`), shortened. */
function describe(json: unknown): string {
  const j = json as { description?: unknown; error?: { message?: unknown } } | null;
  const msg = typeof j?.description === 'string' ? j.description : j?.error?.message;
  return typeof msg === 'string' ? ` (${msg.slice(0, 200)})` : '';
}
