import { Hono } from 'hono';
import { hasCapability } from '../../../core/auth/scope.ts';
import { createRetrieval } from '../../../core/search/retrieval.ts';
import { notesFor, retrievalFor } from '../scoped.ts';
import type { AppEnv } from '../types.ts';
import { actorOf } from './history.ts';
import type { McpDeps } from './mcp-deps.ts';

export type { McpDeps } from './mcp-deps.ts';

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
    const scope = p?.scope;
    const scoped: McpDeps = {
      ...deps,
      principalActor,
      notes: notesFor(c, deps.notes),
      retrieval: retrievalFor(c, deps.retrieval ?? createRetrieval({ notes: deps.notes })),
      canWrite: scope === undefined || hasCapability(scope, 'notes:write'),
      read: scope === undefined || hasCapability(scope, 'notes:read'),
    };
    return (await import('./mcp-server.ts')).handleMcp(scoped, c.req.raw);
  });
  return app;
}
