/**
 * The MCP endpoint's bounds, applied around the SDK's transport: the request is parsed here once
 * (nesting depth checked, at most MAX_MCP_BATCH messages in a batch) and the answer is held to a
 * byte budget, a message past it answered with a JSON-RPC error of its own id instead.
 */
import { jsonDepth, MAX_JSON_DEPTH } from '../../core/json-depth.ts';

/** Messages in one JSON-RPC batch at most. */
export const MAX_MCP_BATCH = 32;
/** The default answer budget of one POST (MCP_MAX_ANSWER_BYTES). */
export const MCP_MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** The JSON-RPC error code for an answer over the budget (implementation-defined server error). */
export const ANSWER_TOO_LARGE = -32001;

/** A JSON-RPC error answer (id null: the request could not be read). */
export const rpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

/**
 * The parsed body of an MCP POST, or the JSON-RPC error answer that refuses it: not JSON (-32700),
 * nested deeper than MAX_JSON_DEPTH or a batch of more than MAX_MCP_BATCH (-32600).
 */
export function readMcpBody(text: string): { body: unknown } | { refuse: Response } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { refuse: rpcError(400, -32700, 'Parse error: Invalid JSON') };
  }
  if (jsonDepth(body) > MAX_JSON_DEPTH) {
    return {
      refuse: rpcError(
        400,
        -32600,
        `Invalid Request: the message nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.`,
      ),
    };
  }
  if (Array.isArray(body) && body.length > MAX_MCP_BATCH) {
    return {
      refuse: rpcError(
        400,
        -32600,
        `Invalid Request: a batch may hold at most ${MAX_MCP_BATCH} messages (this one has ${body.length}).`,
      ),
    };
  }
  return { body };
}

const encoder = new TextEncoder();

/**
 * Holds a JSON answer of the transport to `maxBytes`: messages are kept in order while they fit,
 * and each one past the budget becomes a JSON-RPC error with its id. Other answers pass unchanged.
 */
export async function capMcpAnswer(res: Response, maxBytes: number): Promise<Response> {
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) return res;
  const text = await res.text();
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  if (encoder.encode(text).byteLength <= maxBytes) return new Response(text, { status: res.status, headers });
  const parsed = JSON.parse(text) as unknown;
  const batch = Array.isArray(parsed);
  const messages = (batch ? parsed : [parsed]) as { id?: unknown }[];
  let used = 2;
  const out = messages.map((m) => {
    const s = JSON.stringify(m);
    const size = encoder.encode(s).byteLength + 1;
    if (used + size <= maxBytes) {
      used += size;
      return m;
    }
    return {
      jsonrpc: '2.0',
      id: m.id ?? null,
      error: {
        code: ANSWER_TOO_LARGE,
        message: `The answer would be larger than ${maxBytes} bytes (MCP_MAX_ANSWER_BYTES); ask for less: a smaller limit, or one note per request.`,
      },
    };
  });
  return new Response(JSON.stringify(batch ? out : out[0]), { status: res.status, headers });
}
