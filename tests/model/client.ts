/**
 * A small HTTP client for the model test over node:http: the raw answer (status, headers, bytes)
 * with the body decoded by its Content-Encoding, so the test sees which encoding the server chose
 * and checks each one. Never rejects: a network error is status 0.
 */
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The decoded body text. */
  text: string;
  json: any;
  encoding: string;
  error?: string;
}

/** A client of the server at `origin`: paths are under /api/v1, except /mcp. */
export function client(origin: string, key: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const request = (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers: Record<string, string> = { 'x-service-key': key, ...init.headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve) => {
      const fail = (err: NodeJS.ErrnoException) =>
        resolve({
          status: 0,
          headers: {},
          text: '',
          json: null,
          encoding: '',
          error: err.code ?? err.message,
        });
      const req = http.request(
        `${origin}${path === '/mcp' ? '' : '/api/v1'}${path}`,
        { method, headers, agent, timeout: 30_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', fail);
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const encoding = String(res.headers['content-encoding'] ?? 'identity');
            let text: string;
            try {
              text = (
                encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : raw
              ).toString('utf8');
            } catch (err) {
              text = `<undecodable ${encoding} body: ${(err as Error).message}>`;
            }
            let json: any = null;
            try {
              json = text ? JSON.parse(text) : null;
            } catch {}
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, encoding });
          });
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      req.on('error', fail);
      req.end(body);
    });
  };
  let mcpId = 0;
  return {
    request,
    /** Calls an MCP tool on the stateless endpoint: its structured result, or the error. */
    async tool(name: string, args: Record<string, unknown>) {
      const a = await request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: ++mcpId, method: 'tools/call', params: { name, arguments: args } },
        headers: { accept: 'application/json, text/event-stream' },
      });
      const result = a.json?.result;
      return {
        answer: a,
        ok: a.status === 200 && result !== undefined && result.isError !== true,
        data: result?.structuredContent as any,
        text: a.text,
      };
    },
    close: () => agent.destroy(),
  };
}

export type Client = ReturnType<typeof client>;
