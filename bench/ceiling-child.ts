/**
 * The ceiling: a bare node:http server answering a small JSON body, measured with the same
 * load settings as the note routes. Reports `ready` with its URL over IPC.
 */
import { createServer } from 'node:http';
import { exitWithParent, serveCeiling } from './children.ts';

exitWithParent();
const body = JSON.stringify({ success: true, data: { status: 'ok', version: '0.0.0' } });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': body.length });
  res.end(body);
});
serveCeiling(server);
