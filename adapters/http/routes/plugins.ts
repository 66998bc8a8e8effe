import { Hono } from 'hono';
import { parseJsonBody } from '../../../core/json.ts';
import type { PluginManager } from '../../../core/plugins/manager.ts';
import { InstallPluginBody, PluginConfigBody, TogglePluginBody } from '../../../core/plugins/schemas.ts';
import { ok, readJson } from '../../../http-kit/envelope.ts';
import type { AppEnv } from '../types.ts';

/** The part of the path after `/plugins/<id>`, e.g. `/mentions`. */
const subPath = (path: string): string => /\/plugins\/[^/]+(\/.*)?$/.exec(path)?.[1] ?? '';

/**
 * `/api/v1/plugins`: list, catalog, runtime, install, toggle, config, remove, and the routes
 * plugins contribute under `/:id/...`. Every id is looked up in the catalog first.
 */
export function pluginsRoutes(plugins: PluginManager) {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => ok(c, plugins.list()));
  app.get('/catalog', (c) => ok(c, plugins.catalog()));
  app.get('/runtime', (c) => ok(c, plugins.runtime()));
  app.post('/install', async (c) => {
    const body = await readJson(c, InstallPluginBody);
    return ok(c, await plugins.install(body), 201);
  });
  app.get('/:id', (c) => ok(c, plugins.get(c.req.param('id'))));
  app.post('/:id/toggle', async (c) => {
    const id = c.req.param('id');
    plugins.get(id);
    const empty = (await c.req.text()).trim() === '';
    const body = empty ? {} : await readJson(c, TogglePluginBody);
    return ok(c, await plugins.toggle(id, body.enabled));
  });
  app.put('/:id/config', async (c) => {
    const id = c.req.param('id');
    plugins.get(id);
    return ok(c, await plugins.configure(id, await readJson(c, PluginConfigBody)));
  });
  app.delete('/:id', async (c) => ok(c, await plugins.remove(c.req.param('id'))));
  app.all('/:id/*', async (c) => {
    const id = c.req.param('id');
    plugins.get(id);
    const method = c.req.method;
    let input: unknown = c.req.query();
    if (method === 'POST' || method === 'PUT') {
      const text = await c.req.text();
      input = text.trim() === '' ? {} : parseJsonBody(text);
    }
    return ok(c, await plugins.callRoute(id, method, subPath(c.req.path), input, c.req.raw.signal));
  });
  return app;
}
