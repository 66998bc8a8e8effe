import { Hono } from 'hono';
import { hasCapability } from '../../../core/auth/scope.ts';
import { scopedNotes, scopedRetrieval } from '../../../core/auth/scoped.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import { createRetrieval, type Retrieval } from '../../../core/search/retrieval.ts';
import type { AppEnv } from '../types.ts';
import { actorOf } from './history.ts';

/** What the MCP endpoint needs. */
export interface McpDeps {
  notes: NoteService;
  /** The search `search_notes` runs (hybrid when embeddings are on); default: lexical over `notes`. */
  retrieval?: Retrieval;
  version: string;
  /** List and allow the write tools (MCP_WRITE, default on). */
  write: boolean;
  /**
   * List the write tools to this key (false without notes:write; default on). A call of one is
   * still refused by the scoped note service, naming the capability.
   */
  canWrite?: boolean;
  /** List and allow the read tools and resources (false for a key without notes:read; default on). */
  read?: boolean;
  /** Who the request is for, as REST credits it (`key:<id>`, `jwt:<subject>`; none without auth). */
  principalActor?: string;
  /** The `by` of this request's writes (set per request by mcp-server.ts; default `mcp`). */
  by?: string;
  /** The largest answer to one POST (MCP_MAX_ANSWER_BYTES, default 4 MiB). */
  maxAnswerBytes?: number;
}

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless, answered as JSON (so it
 * also works through the relay, which carries whole answers). Authentication is the app's.
 * The MCP SDK is imported on the first request (mcp-server.ts), not when the server starts.
 */
export function mcpRoutes(deps: McpDeps) {
  const app = new Hono<AppEnv>();
  app.post('/', async (c) => {
    // The key's scope decides the tools, resources and answers (core/auth/scoped.ts).
    const p = c.get('principal');
    const actor = actorOf(c);
    const principalActor = actor === 'api' ? undefined : actor;
    const scoped: McpDeps =
      p?.scope === undefined
        ? { ...deps, principalActor }
        : {
            ...deps,
            principalActor,
            notes: scopedNotes(deps.notes, p),
            retrieval: scopedRetrieval(deps.retrieval ?? createRetrieval({ notes: deps.notes }), p),
            canWrite: hasCapability(p.scope, 'notes:write'),
            read: hasCapability(p.scope, 'notes:read'),
          };
    return (await import('./mcp-server.ts')).handleMcp(scoped, c.req.raw);
  });
  return app;
}
