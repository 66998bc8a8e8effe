/**
 * Quire inside another Hono app: the app's own routes use the core directly, and Quire's HTTP API
 * is mounted beside them. Run: PORT=8080 node --import tsx examples/embed-hono.ts
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createApp } from 'quire/adapters/http';
import { memoryNoteStore } from 'quire/adapters/store';
import { createCore } from 'quire/core';

const clock = { now: Date.now };
const logger = { debug() {}, info() {}, warn: console.warn, error: console.error };
const store = memoryNoteStore({ files: { 'hello.md': '# Hello\n\nSee [[world]].', 'world.md': '# World' } });
const core = createCore({ store, clock, logger });
await core.load();

const app = new Hono();
// The host app's own page, straight from the core.
app.get('/titles', (c) => c.json(core.notes.list().items.map((n) => n.title)));
// Quire's API (/api/v1/...), here without authentication: put your own auth middleware first.
app.route('/', createApp({ notes: core.notes, agent: core.agent, version: '1.0.0', clock, logger }));

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 8080), hostname: '127.0.0.1' },
  (info) => console.log(`listening on http://127.0.0.1:${info.port}`),
);
process.once('SIGTERM', () => server.close(() => process.exit(0)));
