/**
 * The ceiling: a bare node:http server answering a small JSON body, measured with the same
 * load settings as the note routes. Reports `ready` with its URL over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exitWithParent, memory, report } from './children.ts';

exitWithParent();
const body = JSON.stringify({ success: true, data: { status: 'ok', version: '0.0.0' } });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  void report({ type: 'ready', url: `http://127.0.0.1:${port}` });
});
process.on('message', (m: { type?: string }) => {
  if (m.type === 'mem') void report({ type: 'mem', ...memory() });
  if (m.type === 'stop') {
    server.close();
    server.closeAllConnections();
    void report({ type: 'stopped' }).then(() => process.exit(0));
  }
});
