import { Hono } from 'hono';
import type { Agent } from '../../../core/agent/agent.ts';
import { ChatBody } from '../../../core/agent/schemas.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import type { AppEnv } from '../types.ts';

/** `GET /api/v1/agent/status` and `POST /api/v1/agent/chat`. */
export function agentRoutes(agent: Agent) {
  const app = new Hono<AppEnv>();
  app.get('/status', async (c) => ok(c, await agent.status()));
  app.post('/chat', async (c) => {
    const body = await readJson(c, ChatBody);
    const reply = await agent.chat({
      message: body.message,
      notePath: body.notePath,
      channel: body.channel,
      signal: c.req.raw.signal,
      principal: c.get('principal'),
    });
    return ok(c, reply);
  });
  return app;
}
