/**
 * A note server in its own process for the relay bench: the real app over one in-memory note,
 * listening directly (port 0) and, with RELAY_URL, connected to that relay. Prints one JSON
 * line `{"msg":"bench server ready","url":...}` once it serves (and, with a relay, is online).
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../adapters/http/app.ts';
import { relayConnector } from '../adapters/relay/connector.ts';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { createNoteService } from '../core/notes.ts';
import type { Logger } from '../core/ports.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };
const store = memoryNoteStore({
  clock,
  files: { 'bench/note.md': `# Bench\n\n${'Some words. '.repeat(200)}` },
});
const notes = createNoteService({ store, clock, logger: quiet });
await notes.load();
const app = createApp({ notes, version: 'bench', clock, logger: quiet });
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const relayUrl = process.env.RELAY_URL;
if (relayUrl) {
  const connector = relayConnector({
    relayUrl,
    serverId: process.env.BENCH_SERVER_ID ?? 'bench-server',
    secret: 'bench-secret-bench-secret-bench-secret',
    handle: async (req) => app.fetch(req),
    redeemPairCode: async () => null,
    concurrency: Number(process.env.BENCH_PULLS ?? 4),
    logger: quiet,
  });
  connector.start();
  while (connector.status().state !== 'online') await new Promise((r) => setTimeout(r, 20));
  process.once('SIGTERM', () => void connector.stop().then(() => process.exit(0)));
} else process.once('SIGTERM', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ msg: 'bench server ready', url })}\n`);
