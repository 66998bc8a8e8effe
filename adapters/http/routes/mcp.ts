import { Hono } from 'hono';
import { hasCapability } from '../../../core/auth/scope.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import type { Retrieval } from '../../../core/search/retrieval.ts';
import type { AppEnv } from '../types.ts';

/** What the MCP endpoint needs. */
export interface McpDeps {
  notes: NoteService;
  /** The search `search_notes` runs (hybrid when embeddings are on); default: lexical over `notes`. */
  retrieval?: Retrieval;
  version: string;
  /** List and allow the write tools (MCP_WRITE, default on). */
  write: boolean;
  /** The largest answer to one POST (MCP_MAX_ANSWER_BYTES, default 4 MiB). */
  maxAnswerBytes?: number;
}

/** The scheme and host of a note's resource URI. */
export const PREFIX = 'quire://note/';

/** `quire://note/<path>` with each segment percent-encoded. */
export const noteUri = (path: string): string => PREFIX + path.split('/').map(encodeURIComponent).join('/');

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless, answered as JSON (so it
 * also works through the relay, which carries whole answers). Authentication is the app's.
 * The MCP SDK is imported on the first request (mcp-server.ts), not when the server starts.
 */
export function mcpRoutes(deps: McpDeps) {
  const app = new Hono<AppEnv>();
  app.post('/', async (c) => {
    // A credential without `notes:write` (a read-only key or OAuth grant) gets no write tools.
    const write = deps.write && hasCapability(c.get('principal')?.scope, 'notes:write');
    return (await import('./mcp-server.ts')).handleMcp(
      write === deps.write ? deps : { ...deps, write },
      c.req.raw,
    );
  });
  return app;
}
