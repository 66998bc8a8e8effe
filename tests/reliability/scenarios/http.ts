/**
 * A small HTTP client over node:http for load and fault tests: every call ends in exactly one
 * outcome, an HTTP status or a network error code, with its latency. `sent: false` marks the
 * errors where the request provably never reached a server (connection refused).
 */
import http from 'node:http';

/** What one request ended in. */
export type Outcome =
  | { status: number; json: any; ms: number; error?: undefined; sent?: undefined }
  | { status: 0; error: string; sent: boolean; ms: number; json?: undefined };

/** Options of `httpClient`. */
export interface ClientOptions {
  /** Reuse connections (default true). Off: one connection per request. */
  keepAlive?: boolean;
  /** Most sockets per host (default 256). */
  maxSockets?: number;
  /** Gives up a request after this many ms (default 60 000): error `TIMEOUT`. */
  timeoutMs?: number;
}

/** An HTTP client with its own agent. */
export function httpClient(opts: ClientOptions = {}) {
  const agent = new http.Agent({
    keepAlive: opts.keepAlive ?? true,
    maxSockets: opts.maxSockets ?? 256,
    noDelay: true,
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return {
    /** Sends one request; a JSON body is given as an object. Never rejects. */
    request(
      method: string,
      url: string,
      init: { headers?: Record<string, string>; body?: unknown } = {},
    ): Promise<Outcome> {
      const started = performance.now();
      const body = init.body === undefined ? undefined : JSON.stringify(init.body);
      const headers: Record<string, string> = { ...init.headers };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      return new Promise((resolve) => {
        let settled = false;
        const finish = (o: Outcome) => {
          if (settled) return;
          settled = true;
          resolve(o);
        };
        const req = http.request(url, { method, headers, agent, timeout: timeoutMs }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: any = null;
            try {
              json = text ? JSON.parse(text) : null;
            } catch {}
            finish({ status: res.statusCode ?? 0, json, ms: performance.now() - started });
          });
          res.on('error', (err: NodeJS.ErrnoException) =>
            finish({
              status: 0,
              error: err.code ?? err.message,
              sent: true,
              ms: performance.now() - started,
            }),
          );
        });
        req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
        req.on('error', (err: NodeJS.ErrnoException) => {
          const code = err.code ?? err.message;
          finish({ status: 0, error: code, sent: code !== 'ECONNREFUSED', ms: performance.now() - started });
        });
        req.end(body);
      });
    },
    /** Closes every socket. */
    close() {
      agent.destroy();
    },
  };
}

/** Percentile `q` (0..1) of ascending numbers, nearest rank; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}
