/**
 * A note server in its own process for the relay bench: the real app over one in-memory note,
 * listening directly (port 0) and, with RELAY_URL, connected to that relay. Prints one JSON
 * line `{"msg":"bench server ready","url":...}` once it serves (and, with a relay, is online).
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../adapters/http/app.ts';
import { memoryNoteStore } from '../adapters/store/memory-note-store.ts';
import { createIdentity, serverIdOf } from '../core/identity.ts';
import { createNoteService } from '../core/notes/service.ts';
import type { Logger } from '../core/ports.ts';
import { relayConnector } from '../relay/connector/connector.ts';
import { tunnelConnector } from '../relay/connector/tunnel-connector.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const clock = { now: () => Date.now() };
const store = memoryNoteStore({
  clock,
  files: { 'bench/note.md': `# Bench\n\n${'Some words. '.repeat(200)}` },
});
const notes = createNoteService({ store, clock, logger: quiet });
await notes.load();
const inner = createApp({ notes, version: 'bench', clock, logger: quiet });
const app = inner;
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const relayUrl = process.env.RELAY_URL;
const identity = await createIdentity();
const serverId = (await serverIdOf(identity.publicKey)) as string;
if (relayUrl) {
  const make = process.env.BENCH_TRANSPORT === 'poll' ? relayConnector : tunnelConnector;
  const connector = make({
    relayUrl,
    serverId,
    identity,
    handle: async (req) => app.fetch(req),
    redeemPairCode: async () => null,
    concurrency: Number(process.env.BENCH_PULLS ?? 4),
    logger: quiet,
  });
  connector.start();
  while (connector.status().state !== 'online') await new Promise((r) => setTimeout(r, 20));
  process.once('SIGTERM', () => void connector.stop().then(() => process.exit(0)));
} else process.once('SIGTERM', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ msg: 'bench server ready', url, serverId })}\n`);
