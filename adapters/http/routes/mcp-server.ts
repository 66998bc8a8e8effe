/** The MCP server over the note service: loaded by `/mcp` on its first request (mcp.ts). */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { isDomainError } from '../../../core/errors.ts';
import { capMcpAnswer, MCP_MAX_ANSWER_BYTES, readMcpBody } from '../../mcp/limits.ts';
import { callMcpTool, isMcpToolName, mcpToolList } from '../../mcp/tools.ts';
import type { McpDeps } from './mcp-deps.ts';

/** The scheme and host of a note's resource URI. */
const PREFIX = 'quire://note/';

/** `quire://note/<path>` with each segment percent-encoded. */
const noteUri = (path: string): string => PREFIX + path.split('/').map(encodeURIComponent).join('/');

/** Resources listed per page. */
const PAGE = 500;

/** We never ask clients for elicitation, so the SDK's JSON-schema validator (ajv) is not needed. */
const noValidator = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input, errorMessage: undefined }),
} as unknown as jsonSchemaValidator;

/** The request schemas we answer (each a zod object with a `method` literal and `params`). */
type RequestSchema =
  | typeof CallToolRequestSchema
  | typeof ListToolsRequestSchema
  | typeof ListResourcesRequestSchema
  | typeof ListResourceTemplatesRequestSchema
  | typeof ReadResourceRequestSchema;

/**
 * Registers `handler` for `schema`'s method, with the request's shape checked here. The SDK parses
 * a request against the handler's schema before calling it and answers a mismatch (a tool name
 * that is a number, a URI that is missing) as -32603 Internal error with the schema library's
 * dump; a request of the wrong shape is the client's mistake: -32602 Invalid params.
 */
function handle<S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (req: SchemaOutput<S>) => ServerResult | Promise<ServerResult>,
): void {
  server.setRequestHandler(schema.pick({ method: true }).loose(), (raw) => {
    const r = schema.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0];
      const where = issue?.path.map(String).join('.') || 'request';
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${where}: ${issue?.message ?? 'invalid'}`);
    }
    return handler(r.data as SchemaOutput<S>);
  });
}

/** One MCP server instance over the note service (built per request: the endpoint is stateless). */
export function buildServer(deps: McpDeps): Server {
  const server = new Server(
    { name: 'quire', version: deps.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Quire is a markdown note server. Search or list notes, read one by path, and (when writes are on) edit with patch_note for one section or update_note for the whole note; pass the checksum you read as ifMatch.',
      jsonSchemaValidator: noValidator,
    },
  );
  handle(server, ListToolsRequestSchema, () => ({
    tools: mcpToolList(deps.write && (deps.canWrite ?? true), deps.notes.history !== null, deps.read ?? true),
  }));
  handle(server, CallToolRequestSchema, (req) => {
    // Own names only: `constructor` or `__proto__` is no tool (a JSON-RPC error, as the spec asks).
    const name = req.params.name;
    if (!isMcpToolName(name))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: "${name.slice(0, 100)}".`);
    return callMcpTool(
      deps.notes,
      deps.write,
      name,
      req.params.arguments,
      deps.retrieval,
      deps.by ?? 'mcp',
      deps.keyNames,
    );
  });
  handle(server, ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: `${PREFIX}{path}`,
        name: 'note',
        mimeType: 'text/markdown',
        description: 'A note by path.',
      },
    ],
  }));
  handle(server, ListResourcesRequestSchema, (req) => {
    // A key without notes:read has no resources (its scope, core/auth/scoped.ts).
    if (deps.read === false) return { resources: [] };
    const items = deps.notes.list().items;
    const cursor = req.params?.cursor;
    const from = cursor ? items.findIndex((n) => n.path > cursor) : 0;
    const page = from < 0 ? [] : items.slice(from, from + PAGE);
    const last = page.at(-1);
    return {
      resources: page.map((n) => ({
        uri: noteUri(n.path),
        name: n.path,
        title: n.title,
        mimeType: 'text/markdown',
      })),
      ...(last && from + PAGE < items.length ? { nextCursor: last.path } : {}),
    };
  });
  handle(server, ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (!uri.startsWith(PREFIX)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource "${uri}".`);
    let path: string;
    try {
      path = uri.slice(PREFIX.length).split('/').map(decodeURIComponent).join('/');
    } catch {
      throw new McpError(ErrorCode.InvalidParams, `Invalid resource URI "${uri}".`);
    }
    try {
      const note = await deps.notes.get(path);
      return { contents: [{ uri: noteUri(note.path), mimeType: 'text/markdown', text: note.content }] };
    } catch (err) {
      if (isDomainError(err)) {
        throw new McpError(ErrorCode.InvalidParams, err.message, { code: err.code });
      }
      throw err;
    }
  });
  return server;
}

/** A client's self-reported name as written in `by`: printable characters only, at most 64. */
export function clientName(raw: unknown): string {
  if (typeof raw !== 'string') return '';
  const clean = raw
    .replace(/[\p{C}]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
  return Array.from(clean).slice(0, 64).join('').trim();
}

/**
 * The endpoint is stateless (each POST builds a server), so the client's name from `initialize`
 * travels in the session id we hand back (`Mcp-Session-Id: <random>.<base64url name>`), which
 * the client sends on every later request. It is self-reported either way: it only says who wrote.
 */
const sessionFor = (name: string): string => {
  const rnd = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
  const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(name)));
  return `${rnd}.${b64.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '')}`;
};

/** The client name carried by a session id of ours, or '' (absent, foreign or malformed). */
export function nameOfSession(id: string | null): string {
  const m = id ? /^[0-9a-f]{24}\.([A-Za-z0-9_-]{1,400})$/.exec(id) : null;
  if (!m) return '';
  try {
    const bin = atob(m[1]!.replaceAll('-', '+').replaceAll('_', '/'));
    return clientName(
      new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))),
    );
  } catch {
    return '';
  }
}

/** `mcp`, `mcp:<client>`, `mcp (key:<id>)` or `mcp:<client> (key:<id>)`: the `by` of MCP writes. */
export const mcpActor = (client: string, principal: string | undefined): string =>
  `mcp${client ? `:${client}` : ''}${principal ? ` (${principal})` : ''}`;

const initializeIn = (body: unknown): Record<string, unknown> | undefined =>
  (Array.isArray(body) ? body : [body]).find(
    (m): m is Record<string, unknown> =>
      typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );

/** Why `m`, an `initialize` or `ping` request, does not have its method's shape; null when it does. */
function ownProblem(m: unknown): string | null {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return null;
  const { method, id } = m as { method?: unknown; id?: unknown };
  const schema =
    method === 'initialize' ? InitializeRequestSchema : method === 'ping' ? PingRequestSchema : null;
  const r = schema?.safeParse(m);
  if (!r || r.success || id === undefined) return null;
  const issue = r.error.issues[0];
  return `${issue?.path.map(String).join('.') || 'request'}: ${issue?.message ?? 'invalid'}`;
}

/**
 * The SDK's own handlers (`initialize`, `ping`) parse their request the same way (see `handle`);
 * one of the wrong shape is answered here, -32602 Invalid params. In a batch too (where the SDK
 * would answer -32603 with the schema dump): the batch is refused whole, id null, as JSON-RPC
 * allows for an invalid batch (MCP forbids an initialize in a batch anyway).
 */
function malformedOwn(body: unknown): Response | null {
  const items = Array.isArray(body) ? body : [body];
  for (const [i, m] of items.entries()) {
    const problem = ownProblem(m);
    if (problem === null) continue;
    const batch = Array.isArray(body);
    return Response.json({
      jsonrpc: '2.0',
      id: batch ? null : (m as { id: unknown }).id,
      error: {
        code: ErrorCode.InvalidParams,
        message: `Invalid params: ${batch ? `batch item ${i}: ` : ''}${problem}`,
      },
    });
  }
  return null;
}

/** Answers one MCP request (Streamable HTTP, stateless, JSON answers). */
export async function handleMcp(deps: McpDeps, request: Request): Promise<Response> {
  const read = readMcpBody(await request.text());
  if ('refuse' in read) return read.refuse;
  const own = malformedOwn(read.body);
  if (own) return own;
  const init = initializeIn(read.body);
  const name = init
    ? clientName((init.params as { clientInfo?: { name?: unknown } } | undefined)?.clientInfo?.name)
    : nameOfSession(request.headers.get('mcp-session-id'));
  const server = buildServer({ ...deps, by: mcpActor(name, deps.principalActor) });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const res = await capMcpAnswer(
      await transport.handleRequest(request, { parsedBody: read.body }),
      deps.maxAnswerBytes ?? MCP_MAX_ANSWER_BYTES,
    );
    if (!init || !name || !res.ok) return res;
    const headers = new Headers(res.headers);
    headers.set('mcp-session-id', sessionFor(name));
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  } finally {
    void server.close().catch(() => {});
  }
}
