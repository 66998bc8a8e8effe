import { Hono } from 'hono';
import { viewOf } from '../scoped.ts';
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
    // The key's scope decides the tools, resources and answers: the request's view (scoped.ts).
    const view = viewOf(c);
    const actor = actorOf(c);
    const scoped: McpDeps = {
      ...deps,
      principalActor: actor === 'api' ? undefined : actor,
      notes: view.notes,
      retrieval: view.retrieval,
      canWrite: view.write,
      read: view.read,
    };
    return (await import('./mcp-server.ts')).handleMcp(scoped, c.req.raw);
  });
  return app;
}
