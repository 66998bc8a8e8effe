import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import type { NoteEvent } from '../../../core/notes/service.ts';
import { definePlugin } from '../../../core/plugins/define.ts';
import { tempDir } from '../../helpers/app.ts';
import { pluginApp, snapshot } from '../../helpers/plugins.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: Parameters<typeof pluginApp>[1] = {}) {
  const tmp = await tempDir();
  cleanups.push(tmp.cleanup);
  const dataDir = join(tmp.dir, 'data');
  const made = await pluginApp(dataDir, opts);
  cleanups.push(() => made.plugins.stop());
  return { ...made, root: tmp.dir, dataDir };
}

const seen: NoteEvent[] = [];
const recorder = definePlugin({
  id: 'recorder',
  name: 'Recorder',
  version: '0.1.0',
  description: 'Keeps every note event and offers a tool that counts them.',
  capabilities: ['hooks', 'tools'],
  configSchema: v.object({ label: v.optional(v.pipe(v.string(), v.maxLength(20)), 'events') }),
  activate: ({ config }) => ({
    hooks: {
      created: (e) => void seen.push(e),
      updated: (e) => void seen.push(e),
    },
    tools: [
      {
        name: 'count_events',
        description: 'How many note events the recorder saw.',
        input: v.object({}),
        write: false,
        run: async () => ({
          output: { [config.label]: seen.length },
          action: { type: 'count_events', summary: `Counted ${seen.length} ${config.label}.` },
        }),
      },
    ],
  }),
});
const thrower = definePlugin({
  id: 'thrower',
  name: 'Thrower',
  version: '0.1.0',
  description: 'Fails in every hook.',
  capabilities: ['hooks'],
  configSchema: v.object({}),
  activate: () => ({
    hooks: {
      created: () => {
        throw new Error('boom in created');
      },
      updated: async () => {
        throw new Error('boom in updated');
      },
    },
  }),
});
const brokenStart = definePlugin({
  id: 'broken-start',
  name: 'Broken start',
  version: '0.1.0',
  description: 'Cannot activate.',
  capabilities: ['hooks'],
  configSchema: v.object({}),
  activate: () => {
    throw new Error('cannot start');
  },
});

describe('the plugin manager', () => {
  it('lists built-ins and code plugins in the catalog, with JSON Schema configs', async () => {
    const t = await setup({ plugins: [recorder] });
    const cat = (await t.call('GET', '/catalog')).json.data;
    expect(cat.map((p: { id: string; source: string }) => `${p.id}:${p.source}`)).toEqual([
      'outbound-webhooks:builtin',
      'daily-notes:builtin',
      'unlinked-mentions:builtin',
      'web-search:builtin',
      'recorder:code',
    ]);
    for (const p of cat) {
      expect(p.configSchema).toMatchObject({
        type: 'object',
        $schema: 'http://json-schema.org/draft-07/schema#',
      });
      expect(p).toMatchObject({ installed: false, enabled: false });
      expect(p.version).toMatch(/^\d+\.\d+\.\d+$/);
    }
    const byId = Object.fromEntries(cat.map((p: { id: string }) => [p.id, p]));
    expect(byId['outbound-webhooks'].configSchema.properties.secret).toMatchObject({
      type: 'string',
      writeOnly: true,
    });
    expect(byId['outbound-webhooks'].capabilities).toEqual(['hooks', 'network']);
    expect(byId['web-search'].configSchema.required).toEqual(['url']);
    expect(byId['web-search'].configSchema.properties.apiKey.writeOnly).toBe(true);
    expect(byId['daily-notes'].configSchema.properties.pathPattern.default).toBe(
      'daily/{{YYYY}}/{{YYYY-MM-DD}}.md',
    );
    expect(byId.recorder.configSchema.properties.label).toMatchObject({ type: 'string', maxLength: 20 });

    await t.call('POST', '/install', { id: 'recorder', enabled: true });
    const after = (await t.call('GET', '/catalog')).json.data.find(
      (p: { id: string }) => p.id === 'recorder',
    );
    expect(after).toMatchObject({ installed: true, enabled: true });
    const list = (await t.call('GET', '')).json.data;
    expect(list).toHaveLength(1);
    expect(Object.keys(list[0]).sort()).toEqual(
      [
        'capabilities',
        'config',
        'configSchema',
        'configured',
        'description',
        'enabled',
        'id',
        'installedAt',
        'name',
        'source',
        'updatedAt',
        'version',
      ].sort(),
    );
  });

  it('a code plugin contributes tools that come and go with its toggle, no restart', async () => {
    const t = await setup({ plugins: [recorder] });
    expect(t.plugins.tools()).toEqual([]);
    await t.call('POST', '/install', { id: 'recorder', config: { label: 'changes' } });
    expect(t.plugins.tools()).toEqual([]);
    await t.call('POST', '/recorder/toggle', { enabled: true });
    expect(t.plugins.tools().map((x) => x.name)).toEqual(['count_events']);
    const out = await t.plugins.tools()[0]!.run({}, {});
    expect(out.output).toEqual({ changes: seen.length });
    const bad = await t.call('PUT', '/recorder/config', { label: 'x'.repeat(21) });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.issues).toEqual([{ field: 'label', message: expect.any(String) }]);
    await t.call('POST', '/recorder/toggle', { enabled: false });
    expect(t.plugins.tools()).toEqual([]);
  });

  it('a throwing plugin does not break note writes; the error shows in runtime; other plugins run', async () => {
    const t = await setup({ plugins: [thrower, recorder, brokenStart] });
    for (const id of ['thrower', 'recorder', 'broken-start']) {
      expect((await t.call('POST', '/install', { id, enabled: true })).status).toBe(201);
    }
    const before = seen.length;
    const created = await t.send('POST', '/api/v1/notes', { body: { path: 'n.md', content: 'hello' } });
    expect(created.status).toBe(201);
    const updated = await t.send('PUT', '/api/v1/notes/n.md', { body: { content: 'hello again' } });
    expect(updated.status).toBe(200);
    expect((await t.send('GET', '/api/v1/notes/n.md')).json.data.content).toBe('hello again');
    await until('the condition', () => seen.length === before + 2);
    expect(seen.slice(before).map((e) => e.type)).toEqual(['created', 'updated']);

    const rt = await until('the condition', async () => {
      const plugins = (await t.call('GET', '/runtime')).json.data.plugins;
      const th = plugins.find((p: { id: string }) => p.id === 'thrower');
      return th.errorCount === 2 ? plugins : null;
    });
    const byId = Object.fromEntries(rt.map((p: { id: string }) => [p.id, p]));
    expect(byId.thrower).toMatchObject({
      state: 'active',
      hookCalls: 2,
      errorCount: 2,
      lastError: { where: 'hook updated', message: 'boom in updated' },
    });
    expect(byId.recorder).toMatchObject({ state: 'active', errorCount: 0, lastError: null, hookCalls: 2 });
    expect(byId['broken-start']).toMatchObject({
      state: 'error',
      loaded: false,
      enabled: true,
      lastError: { where: 'activate', message: 'cannot start' },
    });
  });

  it('hostile ids are 404 and touch nothing', async () => {
    const t = await setup();
    await t.call('POST', '/install', { id: 'daily-notes', enabled: true });
    await writeFile(join(t.root, 'credentials.json'), '{"keep": true}');
    await mkdir(join(t.root, 'outside'));
    await writeFile(join(t.root, 'outside', 'plugins.json'), 'untouched');
    const before = await snapshot(t.root);
    const hostile = [
      '..%2F..%2Fcredentials.json',
      '..%2Fplugins.json',
      '%2e%2e%2fcredentials.json',
      '%2E%2E%2F%2E%2E%2Foutside',
      '..%5C..%5Ccredentials.json',
      'daily-notes%2F..%2F..%2Fcredentials.json',
      'daily-notes%00',
      'DAILY-NOTES',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'plugin.daily-notes.json',
      'x'.repeat(5000),
      encodeURIComponent('dаily-notes'), // Cyrillic а
      encodeURIComponent('\u202edaily-notes💩'),
    ];
    const calls: [string, string, unknown?][] = [];
    for (const id of hostile) {
      calls.push(
        ['DELETE', `/${id}`],
        ['POST', `/${id}/toggle`, { enabled: false }],
        ['PUT', `/${id}/config`, { pathPattern: 'x/{{YYYY}}.md' }],
        ['GET', `/${id}`],
        ['GET', `/${id}/today`],
        ['POST', `/${id}/today`, {}],
      );
    }
    for (const [method, path, body] of calls) {
      const r = await t.call(method, path, body);
      expect(r.status, `${method} ${path.slice(0, 60)}`).toBe(404);
      expect(r.json.error.code, `${method} ${path.slice(0, 60)}`).toBe('PLUGIN_NOT_FOUND');
      expect(r.text.length).toBeLessThan(300);
    }
    for (const id of ['%2e%2e', '.%2e', '%2e%2e%2f']) {
      // URLs normalize these dot segments away: the route is another one, still a 404.
      for (const [method, path] of [
        ['DELETE', `/${id}`],
        ['POST', `/${id}/toggle`],
      ] as const) {
        const r = await t.call(method, path, {});
        expect([404, 405]).toContain(r.status);
      }
    }
    for (const id of ['../credentials.json', '%2e%2e', 'x'.repeat(5000), '__proto__', 'toString']) {
      const r = await t.call('POST', '/install', { id });
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('PLUGIN_NOT_FOUND');
    }
    expect(await snapshot(t.root)).toEqual(before);
    expect((await t.call('GET', '/daily-notes')).json.data.enabled).toBe(true);
  });

  it('validates the toggle and install bodies, and refuses to enable an unconfigured plugin', async () => {
    const t = await setup();
    expect((await t.call('POST', '/web-search/toggle', {})).json.error.code).toBe('PLUGIN_NOT_FOUND');
    expect((await t.call('POST', '/install', {})).json.error.details.issues[0].field).toBe('id');
    const extra = await t.call('POST', '/install', { id: 'web-search', enable: true });
    expect(extra.status).toBe(400);
    const inst = await t.call('POST', '/install', { id: 'web-search' });
    expect(inst.status).toBe(201);
    expect(inst.json.data).toMatchObject({ enabled: false, configured: false, config: {} });
    expect((await t.call('POST', '/install', { id: 'web-search' })).status).toBe(409);
    const bad = await t.call('POST', '/web-search/toggle', { enabled: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.issues[0].field).toBe('enabled');
    expect((await t.call('POST', '/web-search/toggle', { enable: true })).status).toBe(400);
    expect((await t.call('POST', '/web-search/toggle', '{not json')).json.error.code).toBe('INVALID_JSON');
    const unconfigured = await t.call('POST', '/web-search/toggle', { enabled: true });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.json.error.message).toContain('url');
    expect(unconfigured.json.error.details.issues[0].field).toBe('url');
    expect(
      (
        await t.call('POST', '/install', {
          id: 'daily-notes',
          enabled: true,
          config: { timeZone: 'Mars/Base' },
        })
      ).status,
    ).toBe(400);
    const notObject = await t.call('PUT', '/web-search/config', [1, 2]);
    expect(notObject.status).toBe(400);
    const flipped = await t.call('POST', '/install', { id: 'unlinked-mentions' });
    expect(flipped.json.data.enabled).toBe(false);
    expect((await t.call('POST', '/unlinked-mentions/toggle')).json.data.enabled).toBe(true);
    expect((await t.call('POST', '/unlinked-mentions/toggle')).json.data.enabled).toBe(false);
  });

  it('keeps state across a restart', async () => {
    const t = await setup({ plugins: [recorder] });
    await t.call('POST', '/install', {
      id: 'daily-notes',
      config: { timeZone: 'Europe/Berlin' },
      enabled: true,
    });
    await t.call('POST', '/install', { id: 'recorder', config: { label: 'kept' }, enabled: true });
    await t.call('POST', '/install', { id: 'unlinked-mentions' });
    const listed = (await t.call('GET', '')).json.data;
    await t.plugins.stop();
    const again = await pluginApp(t.dataDir, { plugins: [recorder] });
    cleanups.push(() => again.plugins.stop());
    expect((await again.call('GET', '')).json.data).toEqual(listed);
    const rt = (await again.call('GET', '/runtime')).json.data.plugins;
    expect(rt.map((p: { id: string; state: string }) => `${p.id}:${p.state}`)).toEqual([
      'daily-notes:active',
      'unlinked-mentions:disabled',
      'recorder:active',
    ]);
    expect(
      again.plugins
        .tools()
        .map((x) => x.name)
        .sort(),
    ).toEqual(['count_events', 'open_todays_note']);
  });

  it('a damaged plugins.json stops nothing else and is never overwritten', async () => {
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    await writeFile(join(tmp.dir, 'plugins.json'), '{"v":1,"plugins":{"daily-notes":{"enabled":"very"}}}');
    const t = await pluginApp(tmp.dir);
    cleanups.push(() => t.plugins.stop());
    const rt = (await t.call('GET', '/runtime')).json.data;
    expect(rt.stateError).toMatch(/plugins\.json is damaged at plugins\.daily-notes/);
    expect((await t.call('GET', '')).json.data).toEqual([]);
    const r = await t.call('POST', '/install', { id: 'daily-notes' });
    expect(r.status).toBe(409);
    expect(await readFile(join(tmp.dir, 'plugins.json'), 'utf8')).toContain('"very"');
  });

  it('withholds what a plugin did not declare', async () => {
    const sneaky = definePlugin({
      id: 'sneaky',
      name: 'Sneaky',
      version: '0.1.0',
      description: 'Tries to go beyond its capabilities.',
      capabilities: ['tools'],
      configSchema: v.object({}),
      activate: (ctx) => ({
        tools: [
          {
            name: 'sneak',
            description: 'Calls out and writes notes.',
            input: v.object({ what: v.picklist(['fetch', 'write']) }),
            write: false,
            async run({ what }: { what: 'fetch' | 'write' }) {
              if (what === 'fetch') await ctx.fetch('http://example.com/');
              else await ctx.notes.create('sneaky.md', 'x');
              return { output: {}, action: { type: 'sneak', summary: 'sneaked' } };
            },
          },
        ],
        routes: [{ method: 'GET', path: '/x', description: 'x', input: v.object({}), run: async () => 'x' }],
      }),
    });
    const t = await setup({ plugins: [sneaky] });
    await t.call('POST', '/install', { id: 'sneaky', enabled: true });
    const tool = t.plugins.tools()[0]!;
    await expect(tool.run({ what: 'fetch' }, {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(tool.run({ what: 'write' }, {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await t.send('GET', '/api/v1/notes')).json.data).toEqual([]);
    const route = await t.call('GET', '/sneaky/x');
    expect(route.status).toBe(404);
    const rt = (await t.call('GET', '/runtime')).json.data.plugins[0];
    expect(rt.contributions.routes).toEqual([]);
    expect(rt.lastError.message).toContain('without the "routes" capability');
    expect(t.plugins.egress()).toEqual([
      {
        id: 'sneaky',
        name: 'Sneaky',
        enabled: true,
        egress: false,
        destinations: [],
        allowPrivateNetwork: false,
      },
    ]);
  });

  it('definePlugin refuses bad definitions', () => {
    const base = {
      id: 'good-id',
      name: 'Good',
      version: '1.0.0',
      description: 'd',
      capabilities: [] as const,
      configSchema: v.object({ token: v.optional(v.string()) }),
      activate: () => ({}),
    };
    expect(() => definePlugin(base)).not.toThrow();
    for (const id of ['Bad', 'catalog', 'runtime', 'install', '../x', 'a', 'x'.repeat(49), 'a--b', '-a'])
      expect(() => definePlugin({ ...base, id })).toThrow(/id/);
    expect(() => definePlugin({ ...base, version: 'one' })).toThrow(/semver/);
    expect(() => definePlugin({ ...base, secrets: { password: {} } })).toThrow(/password/);
    expect(() => definePlugin({ ...base, capabilities: ['root' as 'tools'] })).toThrow(/capability/);
    expect(() => definePlugin({ ...base, configSchema: v.string() as never })).toThrow(/object schema/);
  });
});
