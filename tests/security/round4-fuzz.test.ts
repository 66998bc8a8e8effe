/**
 * What the fourth round's fuzz found, one test each, over a real Node server on loopback.
 *
 * MCP: a JSON-RPC request whose params do not have the method's shape (a tool name that is not a
 * string, a resource URI that is a number, a cursor that is an object) answered -32603 Internal
 * error with the schema library's dump as its message: the SDK parses the request before the
 * handler and reports that throw as an internal error. It is the client's mistake: -32602.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

describe('MCP answers malformed params as Invalid params, never as an internal error', () => {
  let s: LiveServer;
  beforeAll(async () => {
    s = await liveServer();
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  const rpc = async (body: unknown) => {
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        'x-service-key': s.firstKey,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  it.each([
    ['tools/call', { name: 5, arguments: {} }],
    ['tools/call', { arguments: { path: 'a.md' } }],
    ['resources/read', { uri: 7 }],
    ['resources/read', {}],
    ['resources/list', { cursor: { x: 1 } }],
    ['tools/list', { cursor: [] }],
    ['resources/templates/list', { cursor: 1 }],
    ['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
    ['initialize', 'not an object'],
    ['ping', 'not an object'],
  ])('%s with params %j', async (method, params) => {
    const r = await rpc({ jsonrpc: '2.0', id: 1, method, params });
    expect(r.status).toBe(200);
    expect(r.json.id).toBe(1);
    expect(r.json.error?.code).toBe(-32602);
    expect(r.json.error.message).toMatch(/Invalid (params|tools\/call request)/);
  });

  // The long run in a child process found these: the SDK answered them -32603 with its dump.
  it.each([
    [[{ jsonrpc: '2.0', id: 'g', method: 'initialize', params: { protocolVersion: 5 } }]],
    [
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'ping', params: 5 },
      ],
    ],
  ])('a batch with a malformed initialize or ping: %j', async (batch) => {
    const r = await rpc(batch);
    expect(r.status).toBe(200);
    expect(r.json.error?.code).toBe(-32602);
    expect(r.json.error.message).toMatch(/^Invalid params: batch item \d: params/);
  });

  it('a well-formed call still works', async () => {
    const r = await rpc({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_tags', arguments: {} },
    });
    expect(r.json.result?.isError).not.toBe(true);
  });
});
